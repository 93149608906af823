// lspgate's watcher process (inotify_watch.ts), as watcher.ts runs it where the watching is not on
// its own thread: what it reports, what it never sees, and how it ends.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileChange, watchWorkspace, type WorkspaceWatcher } from "./watcher.ts";
import { startInotify } from "./inotify_process.ts";

async function tempRoot(prefix = "lspgate_inotify_"): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

async function sh(script: string, cwd: string): Promise<void> {
  const out = await new Deno.Command("bash", { args: ["-c", script], cwd }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/** A watcher of a fresh root in lspgate's watcher process, exact, and every change it delivers. */
async function watched(onLost?: () => void, prefix?: string) {
  const root = await tempRoot(prefix);
  const changes: FileChange[] = [];
  const watcher = watchWorkspace(root, (delivered) => {
    changes.push(...delivered);
    return Promise.resolve();
  }, { onLost });
  const deadline = Date.now() + 20_000;
  while (!watcher.exact && Date.now() < deadline) await watcher.flush();
  assert.equal(watcher.exact, true);
  assert.equal(watcher.runsOn, "process");
  return { root, changes, watcher };
}

async function done(watcher: WorkspaceWatcher, root: string) {
  watcher.stop();
  await Deno.remove(root, { recursive: true });
}

const typeOf = (changes: FileChange[], path: string) =>
  changes.filter((change) => change.path === path).map((change) => change.type).at(-1);

Deno.test("watcher process: folders made at once are reported with what they already hold", async () => {
  const { root, changes, watcher } = await watched();
  try {
    // Made faster than a watch on `a` can be set: its contents come from the walk that sets it.
    await sh("mkdir -p a/b/c && echo x > a/b/c/f.py && echo y > a/g.py", root);
    await watcher.flush();
    for (const path of ["a", "a/b", "a/b/c", "a/b/c/f.py", "a/g.py"]) {
      assert.equal(typeOf(changes, join(root, path)), 1, `${path} reported as created`);
    }
    // And the new folders are watched from then on.
    changes.length = 0;
    await Deno.writeTextFile(join(root, "a/b/c/f.py"), "changed");
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "a/b/c/f.py")), 2);
  } finally {
    await done(watcher, root);
  }
});

Deno.test("watcher process: a renamed folder is followed under its new name; removals are reported", async () => {
  const { root, changes, watcher } = await watched();
  try {
    await sh("mkdir -p old/inner && echo x > old/inner/m.py", root);
    await watcher.flush();
    await Deno.rename(join(root, "old"), join(root, "new"));
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "old")), 3, "the old name is gone");
    assert.equal(typeOf(changes, join(root, "new")), 1, "the new name is there");
    changes.length = 0;
    await Deno.writeTextFile(join(root, "new/inner/n.py"), "made after the rename");
    await Deno.remove(join(root, "new/inner/m.py"));
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "new/inner/n.py")), 1);
    assert.equal(typeOf(changes, join(root, "new/inner/m.py")), 3);
    assert.ok(
      !changes.some((change) => change.path.startsWith(join(root, "old/"))),
      `nothing under the old name: ${JSON.stringify(changes)}`,
    );
  } finally {
    await done(watcher, root);
  }
});

Deno.test("watcher process: a folder moved out of the root is no longer watched", async () => {
  const { root, changes, watcher } = await watched();
  const elsewhere = await Deno.makeTempDir({ prefix: "lspgate_inotify_out_" });
  try {
    await sh("mkdir -p gone/inner && echo x > gone/inner/a.py", root);
    await watcher.flush();
    await Deno.rename(join(root, "gone"), join(elsewhere, "gone"));
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "gone")), 3, "moved out: removed");
    changes.length = 0;
    // Its watches would follow the inode: changes out there must not come back under old names.
    await Deno.writeTextFile(join(elsewhere, "gone/inner/b.py"), "outside");
    await Deno.writeTextFile(join(elsewhere, "gone/inner/a.py"), "changed outside");
    await Deno.writeTextFile(join(root, "marker.py"), "inside");
    await watcher.flush();
    assert.deepEqual(changes.map((c) => c.path), [join(root, "marker.py")]);
  } finally {
    await done(watcher, root);
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("watcher process: a heavy folder is not watched, but is once renamed to a plain name", async () => {
  const { root, changes, watcher } = await watched();
  try {
    await sh("mkdir -p node_modules/pkg && echo x > node_modules/pkg/i.js", root);
    await watcher.flush();
    assert.deepEqual(changes, [], "nothing under node_modules is reported");
    await Deno.rename(join(root, "node_modules"), join(root, "vendor"));
    await watcher.flush();
    changes.length = 0;
    await Deno.writeTextFile(join(root, "vendor/pkg/i.js"), "changed");
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "vendor/pkg/i.js")), 2);
  } finally {
    await done(watcher, root);
  }
});

Deno.test("watcher process: files only read are never seen (no IN_OPEN), changes are", async () => {
  const root = await tempRoot();
  await Deno.writeTextFile(join(root, "read.py"), "x = 1\n");
  const process = await startInotify(root, undefined);
  assert.ok(process, "the watcher process starts here (Linux, glibc, Deno may run Deno)");
  const events = process.events[Symbol.asyncIterator]();
  try {
    // What a server does for each references question: open and read every source again.
    for (let i = 0; i < 50; i++) await Deno.readTextFile(join(root, "read.py"));
    await Deno.writeTextFile(join(root, "written.py"), "y = 2\n");
    // The kernel queues in order: the first event after 50 reads is the write's.
    const first = await events.next();
    assert.deepEqual(first.value, { kind: "create", paths: [join(root, "written.py")] });
  } finally {
    process.stop();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("watcher process: a FIFO in the workspace, written and read, stalls nothing", async () => {
  const { root, changes, watcher } = await watched();
  try {
    const fifo = join(root, "pipe.ts");
    await sh(`mkfifo pipe.ts && (cat pipe.ts > /dev/null & echo x > pipe.ts; wait)`, root);
    await Deno.writeTextFile(join(root, "after.ts"), "later");
    await watcher.flush();
    assert.equal(watcher.tracking, "exact", "the flush came back: nothing stalled");
    assert.equal(typeOf(changes, fifo), 1, "made, then written: reported as made");
    assert.equal(typeOf(changes, join(root, "after.ts")), 1);
  } finally {
    await done(watcher, root);
  }
});

Deno.test("watcher process: the kernel's queue overflowing is a loss, said as one", async () => {
  let lost = 0;
  const { root, watcher } = await watched(() => lost++);
  try {
    const pid = watcher.processId!;
    const limit = Number(await Deno.readTextFile("/proc/sys/fs/inotify/max_queued_events"));
    // Stopped, the process reads nothing while more events than the queue holds are made.
    Deno.kill(pid, "SIGSTOP");
    try {
      await sh(`touch $(seq -f 'x%g' 1 ${limit + 100})`, root);
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
    const deadline = Date.now() + 20_000;
    while (lost === 0 && Date.now() < deadline) await watcher.flush();
    assert.ok(lost >= 1, "the overflow was reported");
    assert.equal(watcher.exact, false, "nothing remembered is trusted after a loss");
    assert.equal(watcher.tracking, "best effort");
  } finally {
    await done(watcher, root);
  }
});

/** The watcher process's command line, as the kernel has it. */
async function commandLine(pid: number): Promise<string[]> {
  return (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0").filter(Boolean);
}

/** Whether `pid` ends within `withinMs`. */
async function ended(pid: number, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      if ((await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1][0] === "Z") return true;
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

Deno.test("watcher process: stop() ends it", async () => {
  const { root, watcher } = await watched();
  const pid = watcher.processId!;
  assert.ok(pid > 0);
  await done(watcher, root);
  assert.equal(await ended(pid), true, `the watcher process ${pid} ended`);
});

Deno.test("watcher process: roots share one process, each hearing only its own changes", async () => {
  const a = await watched();
  const b = await watched();
  try {
    const pid = a.watcher.processId!;
    assert.equal(b.watcher.processId, pid, "one process watches both roots");
    // Granted read as lspgate here is (everywhere): roots added later are readable too.
    assert.ok((await commandLine(pid)).includes("--allow-read"));
    await Deno.writeTextFile(join(a.root, "only_a.py"), "a");
    await Deno.writeTextFile(join(b.root, "only_b.py"), "b");
    await a.watcher.flush();
    await b.watcher.flush();
    assert.deepEqual(a.changes, [{ path: join(a.root, "only_a.py"), type: 1 }]);
    assert.deepEqual(b.changes, [{ path: join(b.root, "only_b.py"), type: 1 }]);
    // One root stopped: the other is still watched, exactly.
    a.watcher.stop();
    b.changes.length = 0;
    await Deno.writeTextFile(join(b.root, "later.py"), "b");
    await b.watcher.flush();
    assert.equal(b.watcher.exact, true);
    assert.deepEqual(b.changes, [{ path: join(b.root, "later.py"), type: 1 }]);
    assert.equal(await ended(pid, 300), false, "still running for the other root");
    b.watcher.stop();
    assert.equal(await ended(pid), true, "ended with its last root");
  } finally {
    await done(a.watcher, a.root);
    await done(b.watcher, b.root);
  }
});

Deno.test("watcher process: one root's queue overflowing costs another root nothing", async () => {
  let lostA = 0;
  let lostB = 0;
  const a = await watched(() => lostA++);
  const b = await watched(() => lostB++);
  try {
    const pid = a.watcher.processId!;
    assert.equal(b.watcher.processId, pid);
    const limit = Number(await Deno.readTextFile("/proc/sys/fs/inotify/max_queued_events"));
    Deno.kill(pid, "SIGSTOP");
    try {
      await sh(`touch $(seq -f 'x%g' 1 ${limit + 100})`, a.root);
      await Deno.writeTextFile(join(b.root, "meanwhile.py"), "b");
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
    const deadline = Date.now() + 20_000;
    while (lostA === 0 && Date.now() < deadline) await a.watcher.flush();
    assert.ok(lostA >= 1, "a's overflow was reported");
    await b.watcher.flush();
    assert.equal(lostB, 0, "b lost nothing: its queue is its own");
    assert.equal(b.watcher.exact, true);
    assert.equal(typeOf(b.changes, join(b.root, "meanwhile.py")), 1);
  } finally {
    await done(a.watcher, a.root);
    await done(b.watcher, b.root);
  }
});

Deno.test("watcher process: where lspgate's read is narrowed, each root has its own, granted that root", async () => {
  const roots = [await tempRoot(), await tempRoot()];
  const script = join(roots[0], "start.ts");
  const module = new URL("./inotify_process.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { startInotify } from "${module}";\n` +
      `const started = await Promise.all(Deno.args.map((root) => startInotify(root, undefined)));\n` +
      `console.log(JSON.stringify(started.map((process) => process?.pid)));\n` +
      `await Deno.stdin.read(new Uint8Array(1));\n` +
      `for (const process of started) process?.stop();\n`,
  );
  const libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${[...roots, ...libc].join(",")}`,
      `--allow-run=${Deno.execPath()}`,
      script,
      ...roots,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const pids = JSON.parse((await reader.read()).value!) as number[];
    assert.equal(pids.length, 2);
    assert.ok(pids[0] > 0 && pids[1] > 0 && pids[0] !== pids[1], `two processes: ${pids}`);
    for (const [i, pid] of pids.entries()) {
      assert.ok((await commandLine(pid)).includes(`--allow-read=${roots[i]}`));
    }
    await child.stdin.close();
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    assert.equal((await child.status).code, 0);
    for (const pid of pids) assert.equal(await ended(pid), true);
  } finally {
    for (const root of roots) await Deno.remove(root, { recursive: true });
  }
});

Deno.test("watcher process: one killed is replaced; changes are followed again, best effort", async () => {
  let lost = 0;
  const { root, changes, watcher } = await watched(() => lost++);
  try {
    const pid = watcher.processId!;
    Deno.kill(pid, "SIGKILL");
    assert.equal(await ended(pid), true);
    const deadline = Date.now() + 10_000;
    while (
      (watcher.processId === pid || watcher.processId === undefined) && Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(watcher.processId && watcher.processId !== pid, "another watcher process runs");
    assert.ok(lost >= 1, "what changed meanwhile is unknown: said as a loss");
    assert.equal(watcher.tracking, "best effort");
    await Deno.writeTextFile(join(root, "after.py"), "x");
    const seen = Date.now() + 5_000;
    while (typeOf(changes, join(root, "after.py")) === undefined && Date.now() < seen) {
      await watcher.flush();
    }
    assert.equal(typeOf(changes, join(root, "after.py")), 1, "a change after is delivered");
  } finally {
    await done(watcher, root);
  }
});

Deno.test("watcher process: a root with a comma in its path is watched too (told on stdin, not granted)", async () => {
  const { root, changes, watcher } = await watched(undefined, "lspgate_a,b_");
  try {
    assert.ok(root.includes(","));
    await Deno.writeTextFile(join(root, "c.py"), "x");
    await watcher.flush();
    assert.equal(typeOf(changes, join(root, "c.py")), 1);
  } finally {
    await done(watcher, root);
  }
});
