// A server's own memory cap (`servers.<id>.memoryCapMiB` in the user's config), run the way users
// run lspgate (`deno task start`, its grant) under each sandbox: the kernel's data limit is on every
// process of the real pyright, `status` shows it, and a server that cannot live within it fails
// with a message that names the cap. Real pyright.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTask } from "../helpers/program.ts";

async function workspace(): Promise<{ base: string; root: string }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_cap_" }));
  const root = join(base, "ws");
  await Deno.mkdir(root);
  await Deno.writeTextFile(join(root, "pyproject.toml"), '[project]\nname = "ws"\n');
  await Deno.writeTextFile(
    join(root, "a.py"),
    'def greet(name: str) -> str:\n    return name\n\n\nx = greet("a")\n',
  );
  return { base, root };
}

/** `pid` and every process under it. */
function tree(pid: number): number[] {
  const found = [pid];
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const children = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`).trim();
    for (const child of children ? children.split(" ") : []) found.push(...tree(Number(child)));
  }
  return found;
}

/** The soft and hard data limits of `pid`, as /proc shows them. */
function dataLimits(pid: number): string[] {
  const line = Deno.readTextFileSync(`/proc/${pid}/limits`).split("\n")
    .find((l) => l.startsWith("Max data size"))!;
  return line.trim().split(/\s+/).slice(3, 5);
}

async function run(root: string, base: string, sandbox: string, capMiB: number) {
  const config = join(base, `config-${capMiB}.jsonc`);
  await Deno.writeTextFile(
    config,
    JSON.stringify({ servers: { pyright: { memoryCapMiB: capMiB } } }),
  );
  return startTask(["--root", root, "--sandbox", sandbox, "--config", config]);
}

for (const sandbox of ["none", "bwrap", "landlock"]) {
  Deno.test(`servers.pyright.memoryCapMiB, --sandbox ${sandbox}: every pyright process runs under the data limit, status shows it, and a cap too small fails naming it`, async () => {
    const { base, root } = await workspace();
    try {
      const capped = await run(root, base, sandbox, 2048);
      try {
        const hover = await capped.ask({
          id: 1,
          action: "hover",
          file: "a.py",
          line: 5,
          symbol: "greet",
        }) as { ok: boolean; content: { text: string }[] };
        assert.equal(hover.ok, true, JSON.stringify(hover));
        assert.match(hover.content[0].text, /def greet\(name: str\) -> str/);
        const status = await capped.ask({ id: 2, action: "status" }) as {
          details: { servers: { server: string; pid?: number; memoryCapMiB?: number }[] };
          content: { text: string }[];
        };
        const pyright = status.details.servers.find((s) => s.server === "pyright")!;
        assert.equal(pyright.memoryCapMiB, 2048);
        assert.match(status.content[0].text, /capped at 2048 MiB a process/);
        // bubblewrap's own argv names the server too; it runs outside the cap, set inside it.
        const servers = tree(pyright.pid!).filter((pid) =>
          Deno.readTextFileSync(`/proc/${pid}/comm`).trim() !== "bwrap" &&
          Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("langserver")
        );
        assert.ok(servers.length >= 1, "no pyright process under the server's pid");
        const bytes = String(2048 * 1024 * 1024);
        for (const pid of servers) assert.deepEqual(dataLimits(pid), [bytes, bytes]);
      } finally {
        await capped.finish();
      }
      const starved = await run(root, base, sandbox, 64);
      try {
        const hover = await starved.ask({
          id: 1,
          action: "hover",
          file: "a.py",
          line: 5,
          symbol: "greet",
        }) as { ok: boolean; error: { code: string; message: string } };
        assert.equal(hover.ok, false);
        assert.equal(hover.error.code, "SERVER_START_FAILED");
        assert.match(hover.error.message, /its memory capped at 64 MiB, memoryCapMiB/);
        // It keeps serving.
        const status = await starved.ask({ id: 2, action: "status" });
        assert.equal(status.ok, true);
      } finally {
        await starved.finish();
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  });
}
