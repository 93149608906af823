// All-or-nothing applies against typescript-language-server, run as `deno task start:mutations`
// runs lspgate: a rename across many files where one target cannot be written (a read-only bind
// mount, a full tmpfs, an immutable file) leaves every file byte-identical and answers EDIT_FAILED;
// lspgate killed (-9) in the middle of a 40-file rename, 20 times: after the next start every file
// is all old or all new. Needs root (mount, chattr).
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";
import { ApplyJournal } from "../../src/actions/apply_journal.ts";
import { defaultConfig } from "../../src/config.ts";
import { ADAPTERS, Session } from "../../mod.ts";
import { ensureTypeScript7 } from "../tools.ts";

/** A TypeScript project whose `greet` (lib.ts) is used by `users` files, some in `sub/`. */
async function project(users: number, sub = "sub", inSub = 3): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_atomic_" }));
  await write(root, users, sub, inSub);
  return root;
}

async function write(root: string, users: number, sub = "sub", inSub = 3): Promise<void> {
  await Deno.writeTextFile(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "esnext" } }),
  );
  await Deno.writeTextFile(
    join(root, "lib.ts"),
    "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
  );
  await Deno.mkdir(join(root, sub), { recursive: true });
  for (let i = 0; i < users; i++) {
    const n = String(i).padStart(2, "0");
    const rel = i >= users - inSub ? `${sub}/u${n}.ts` : `u${n}.ts`;
    const lib = rel.includes("/") ? "../lib" : "./lib";
    await Deno.writeTextFile(
      join(root, rel),
      `import { greet } from "${lib}";\n\nexport const v${n} = greet("${n}");\n`,
    );
  }
}

/** Every file under `root` (hidden ones too: a left-over side file shows) and its bytes. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) out.set(path.slice(root.length + 1), await Deno.readTextFile(path));
    }
  };
  await walk(root);
  return out;
}

async function sh(...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command(args[0], { args: args.slice(1) }).output();
  assert.ok(success, `${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}

/** lspgate over `root` with the grant of `deno task start:mutations`. */
class Lspgate {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<string>;
  readonly stderr: Promise<string>;
  #buffer = "";

  constructor(root: string, extra: string[] = [], env: Record<string, string> = {}) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        V8_FLAGS_ARG,
        "--allow-read",
        "--allow-env",
        "--allow-run",
        "--allow-write",
        "mod.ts",
        "--allow-mutations",
        "--root",
        root,
        ...extra,
      ],
      cwd: REPO_ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", ...env },
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reader = this.child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.stderr = new Response(this.child.stderr).text();
  }

  async ask(request: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    return await this.next();
  }

  async next(): Promise<Record<string, unknown>> {
    while (!this.#buffer.includes("\n")) {
      const { value, done } = await this.#reader.read();
      if (done) throw new Error(`lspgate ended; stderr:\n${await this.stderr}`);
      this.#buffer += value;
    }
    const at = this.#buffer.indexOf("\n");
    const line = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 1);
    return JSON.parse(line);
  }

  async close(): Promise<string> {
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.child.status;
    return await this.stderr;
  }

  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.close();
  }
}

const RENAME = {
  id: 1,
  action: "rename",
  file: "lib.ts",
  line: 1,
  symbol: "greet",
  new_name: "welcome",
  apply: true,
  timeout: 60_000,
};

/** Renames greet across the project; the one answer. */
async function rename(root: string): Promise<Record<string, unknown>> {
  const lspgate = new Lspgate(root);
  try {
    return await lspgate.ask(RENAME);
  } finally {
    await lspgate.close();
  }
}

/** The rename is refused (INVALID_INPUT, saying `why`) and every file is as it was, byte for byte. */
async function assertRefusedWhole(root: string, why: RegExp): Promise<void> {
  const before = await snapshot(root);
  const answer = await rename(root);
  const error = answer.error as { code: string; message: string };
  assert.equal(answer.ok, false, JSON.stringify(answer));
  assert.equal(error.code, "INVALID_INPUT", error.message);
  assert.match(error.message, why);
  assert.deepEqual(await snapshot(root), before);
}

function assertEditFailed(answer: Record<string, unknown>, file: RegExp): void {
  const error = answer.error as { code: string; message: string };
  assert.equal(answer.ok, false, JSON.stringify(answer));
  assert.equal(error.code, "EDIT_FAILED", error.message);
  assert.match(error.message, file);
  assert.match(error.message, /Nothing was written: every file is as it was\.$/);
}

Deno.test("a rename with a target on a read-only bind mount writes nothing: EDIT_FAILED", async () => {
  const root = await project(9);
  const sub = join(root, "sub");
  try {
    await sh("mount", "--bind", sub, sub);
    try {
      await sh("mount", "-o", "remount,ro,bind", sub);
      const before = await snapshot(root);
      assertEditFailed(await rename(root), /\(sub\/u0\d\.ts\): Read-only file system/);
      assert.deepEqual(await snapshot(root), before);
    } finally {
      await sh("umount", sub);
    }
    // The same rename, once every file can be written: all of them.
    const answer = await rename(root);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal((answer.details as { files: number }).files, 10);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a rename with a target on a full tmpfs writes nothing: EDIT_FAILED", async () => {
  const root = await project(9, "full", 1);
  const full = join(root, "full");
  const text = await Deno.readTextFile(join(full, "u08.ts"));
  await sh("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full);
  try {
    await Deno.writeTextFile(join(full, "u08.ts"), text);
    // Fill it: the file's new text has nowhere to go.
    const filler = await Deno.open(join(full, "filler"), { write: true, create: true });
    try {
      for (;;) await filler.write(new Uint8Array(4096));
    } catch {
      // No space left on device.
    } finally {
      filler.close();
    }
    const before = await snapshot(root);
    assertEditFailed(await rename(root), /\(full\/u08\.ts\): No space left on device/);
    assert.deepEqual(await snapshot(root), before);
  } finally {
    await sh("umount", full);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a rename with an immutable target puts back the files replaced before it: EDIT_FAILED", async () => {
  const root = await project(9);
  const locked = join(root, "sub", "u08.ts");
  await sh("chattr", "+i", locked);
  try {
    const before = await snapshot(root);
    assertEditFailed(await rename(root), /\(sub\/u08\.ts\): Operation not permitted/);
    assert.deepEqual(await snapshot(root), before);
  } finally {
    await sh("chattr", "-i", locked);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a file another tool writes while the apply runs is not overwritten: EDIT_CONFLICT, every file as it was", async () => {
  const root = await project(6);
  // Slowed between renames, so that another tool's write lands between two of them.
  const lspgate = new Lspgate(root, [], { LSPGATE_TEST_APPLY_PAUSE_MS: "400" });
  try {
    const pending = lspgate.ask(RENAME);
    const files = [...(await snapshot(root)).keys()].filter((f) => f.endsWith(".ts"));
    const read = (f: string) => Deno.readTextFile(join(root, f));
    // Once the first file is renamed, another tool appends to every file not renamed yet.
    let appended: string[] = [];
    for (let tries = 0; tries < 600 && appended.length === 0; tries++) {
      const texts = await Promise.all(files.map(read));
      if (texts.some((t) => t.includes("welcome"))) {
        appended = files.filter((_, i) => !texts[i].includes("welcome"));
        for (const f of appended) {
          await Deno.writeTextFile(join(root, f), "// theirs\n", { append: true });
        }
      } else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(appended.length > 0, "no file was left to write when the first was renamed");
    const answer = await pending;
    const error = answer.error as { code: string; message: string };
    assert.equal(answer.ok, false, JSON.stringify(answer));
    assert.equal(error.code, "EDIT_CONFLICT", error.message);
    assert.match(error.message, /changed on disk while the edit was being written/);
    for (const f of files) {
      const text = await read(f);
      assert.doesNotMatch(text, /welcome/, `${f} was left renamed`);
      assert.equal(text.endsWith("// theirs\n"), appended.includes(f), `${f}: ${text}`);
    }
  } finally {
    await lspgate.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a rename touching a file that is not UTF-8 writes nothing, saying so: its other bytes stay", async () => {
  const root = await project(4);
  const latin1 = join(root, "u00.ts");
  // "café" in Latin-1: é is the one byte 0xE9, which UTF-8 reading turns into U+FFFD.
  const bytes = new Uint8Array([
    ...new TextEncoder().encode("// caf"),
    0xe9,
    0x0a,
    ...await Deno.readFile(latin1),
  ]);
  await Deno.writeFile(latin1, bytes);
  try {
    await assertRefusedWhole(root, /u00\.ts is not UTF-8/);
    assert.deepEqual(await Deno.readFile(latin1), bytes);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a rename in a file with U+2028 and U+2029 (tsserver's line breaks, not LSP's) is written where the name is", async () => {
  // tsserver counts them as line breaks: its positions after one were a line off, and a rename
  // landed elsewhere (a helper's find: `greesalute) + "  tail"`).
  const root = await project(4);
  const before = 'import { greet } from "./lib";\nconst s = "a\u2028b";\n' +
    'export const v = greet("x"); const t = "\u2029"; export const w = greet("y");\n';
  await Deno.writeTextFile(join(root, "u00.ts"), before);
  try {
    const answer = await rename(root);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal(
      await Deno.readTextFile(join(root, "u00.ts")),
      before.replaceAll("greet", "welcome"),
    );
    assert.equal(
      await Deno.readTextFile(join(root, "lib.ts")),
      "export function welcome(name: string): string {\n  return `hi ${name}`;\n}\n",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

for (const typescript7 of [false, true]) {
  const server = typescript7 ? "TypeScript 7's own server" : "typescript-language-server";
  Deno.test(`a rename on the first line of a file with a BOM (${server} drops it from disk) is written where the name is, the BOM kept`, async () => {
    const root = await project(4);
    if (typescript7) {
      await Deno.symlink(await ensureTypeScript7(), join(root, "node_modules"));
      await Deno.writeTextFile(
        join(root, "package.json"),
        JSON.stringify({ devDependencies: { typescript: "7.0.2" } }),
      );
    }
    // The server's columns on a BOM file's first line are short of the file's: the edit landed
    // off (a helper's find: `import {salutet }`), then was refused.
    const before = '\uFEFFimport { greet } from "./lib";\n\nexport const v = greet("x");\n';
    await Deno.writeTextFile(join(root, "u00.ts"), before);
    try {
      const answer = await rename(root);
      assert.equal(answer.ok, true, JSON.stringify(answer));
      // Read with its BOM (readTextFile drops it).
      const after = new TextDecoder("utf-8", { ignoreBOM: true })
        .decode(await Deno.readFile(join(root, "u00.ts")));
      assert.equal(after, before.replaceAll("greet", "welcome"));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("lspgate killed in the middle of a 40-file rename, 20 times: after the next start all old or all new", async () => {
  const root = await project(39);
  // A runtime folder of its own: the journal is this test's alone, whatever else runs here.
  const runtime = await Deno.makeTempDir({ prefix: "lspgate_runtime_" });
  const env = { XDG_RUNTIME_DIR: runtime };
  const old = await snapshot(root);
  const names = [...old.keys()].filter((f) => f.endsWith(".ts"));
  assert.equal(names.length, 40);
  let torn = 0;
  try {
    for (let round = 0; round < 20; round++) {
      await write(root, 39);
      // Renames paced by the test hook, so a kill lands between two of them.
      const lspgate = new Lspgate(root, [], { ...env, LSPGATE_TEST_APPLY_PAUSE_MS: "20" });
      const changed = async () => {
        let n = 0;
        for (const f of names) if ((await Deno.readTextFile(join(root, f))) !== old.get(f)) n++;
        return n;
      };
      // Previewed first: the apply then runs on a server that sees all 40 files (a rename asked
      // while tsserver is still loading the project can cover fewer, which is not what is tested).
      const preview = await lspgate.ask({ ...RENAME, id: 0, apply: false });
      assert.equal((preview.details as { files: number }).files, 40, JSON.stringify(preview));
      const sent = lspgate.ask(RENAME).catch(() => undefined);
      const deadline = Date.now() + 60_000;
      while ((await changed()) === 0) {
        assert.ok(Date.now() < deadline, "the rename never started writing");
        await new Promise((r) => setTimeout(r, 5));
      }
      await new Promise((r) => setTimeout(r, Math.random() * 700));
      await lspgate.kill();
      await sent;
      const atKill = await changed();
      if (atKill > 0 && atKill < names.length) torn++;
      // The next start finishes (or undoes) it, and says so.
      const next = new Lspgate(root, ["--no-servers"], env);
      const status = await next.ask({ id: 1, action: "status" });
      const stderr = await next.close();
      const after = await changed();
      assert.ok(
        after === 0 || after === names.length,
        `round ${round}: ${after} of 40 new (${atKill} at the kill); next start: ` +
          `${JSON.stringify(status)}\n${stderr}`,
      );
      const leftovers = [...(await snapshot(root)).keys()].filter((f) => f.includes(".lspgate-"));
      assert.deepEqual(leftovers, [], `round ${round}`);
      if (atKill > 0 && atKill < names.length) {
        const recovered = (status.details as { recovered?: string }).recovered ?? "";
        assert.match(recovered, /rolled (forward|back)/, JSON.stringify(status));
        assert.ok(stderr.includes(recovered), stderr);
        assert.ok((status.content as { text: string }[])[0].text.includes(recovered));
      }
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
  // The kills landed mid-apply often enough to prove something.
  assert.ok(torn >= 10, `only ${torn} of 20 kills left the tree half-renamed`);
});

/** Previews and applies the move of lib.ts to `to`; the apply's answer. */
async function renameFile(root: string, to: string): Promise<Record<string, unknown>> {
  const lspgate = new Lspgate(root);
  try {
    const request = { action: "rename_file", file: "lib.ts", new_name: to };
    const preview = await lspgate.ask({ id: 1, ...request });
    // The server updates every import: those edits and the move are one transaction.
    assert.ok((preview.details as { files: number }).files >= 5, JSON.stringify(preview));
    return await lspgate.ask({ id: 2, ...request, apply: true });
  } finally {
    await lspgate.close();
  }
}

Deno.test("a rename_file whose move cannot be made puts the import updates back: EDIT_FAILED", async () => {
  const root = await project(4);
  await sh("chattr", "+i", join(root, "lib.ts"));
  try {
    const before = await snapshot(root);
    // The move is the last step: the import updates were renamed into place before it failed.
    assertEditFailed(
      await renameFile(root, "moved/lib.ts"),
      /\(moved\/lib\.ts\): Operation not permitted/,
    );
    assert.deepEqual(await snapshot(root), before);
  } finally {
    await sh("chattr", "-i", join(root, "lib.ts"));
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a rename_file onto another mount moves the file (a copy, then the original removed)", async () => {
  const root = await project(4);
  const dest = join(root, "other");
  await Deno.mkdir(dest);
  await Deno.chmod(join(root, "lib.ts"), 0o640);
  const lib = await Deno.readTextFile(join(root, "lib.ts"));
  await sh("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dest);
  try {
    const answer = await renameFile(root, "other/lib.ts");
    assert.equal(answer.ok, true, JSON.stringify(answer));
    const after = await snapshot(root);
    assert.equal(after.get("other/lib.ts"), lib);
    assert.equal(after.has("lib.ts"), false);
    assert.equal((await Deno.stat(join(dest, "lib.ts"))).mode! & 0o777, 0o640);
    assert.match(after.get("u00.ts")!, /from "\.\/other\/lib"/);
    assert.deepEqual([...after.keys()].filter((f) => f.includes(".lspgate-")), []);
  } finally {
    await sh("umount", dest);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an interrupted apply is only announced to a read-only start, and finished by a start that may write", async () => {
  const root = await project(1);
  try {
    const journal = await ApplyJournal.of(root);
    const temp = join(root, ".u00.ts.lspgate-00000000-0000-4000-8000-000000000001.tmp");
    await Deno.writeTextFile(temp, "export const v00 = 0;\n");
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "committing",
      steps: [{ kind: "replace", target: join(root, "u00.ts"), temp }],
      folders: [],
    });
    const before = await snapshot(root);
    const open = (role: "main" | "subagent", allowMutations: boolean) =>
      Session.open({ root, role, allowMutations, adapters: ADAPTERS, config: defaultConfig() });
    for (const [role, mutations] of [["subagent", true], ["main", false]] as const) {
      const session = await open(role, mutations);
      try {
        const status = await session.handle({ id: 1, action: "status" });
        assert.ok(status.ok);
        assert.match(
          (status.details.notices as string[])[0],
          /is finished or undone by the next lspgate started here with --allow-mutations/,
        );
      } finally {
        await session.close();
      }
      assert.deepEqual(await snapshot(root), before);
    }
    const session = await open("main", true);
    try {
      const status = await session.handle({ id: 1, action: "status" });
      assert.ok(status.ok);
      assert.match(status.details.recovered as string, /rolled forward/);
      assert.match(status.content[0].text, /\nNote: An apply of 1 file\(s\) .* rolled forward/);
      // Said once, in the next answer; status keeps listing it.
      const again = await session.handle({ id: 2, action: "status" });
      assert.ok(again.ok && again.details.recovered === undefined);
      assert.match((again.details.notices as string[])[0], /rolled forward/);
    } finally {
      await session.close();
    }
    assert.equal(await Deno.readTextFile(join(root, "u00.ts")), "export const v00 = 0;\n");
    assert.equal(await journal.read(), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
