/**
 * Tries to escape the sandbox and prints what happened as one JSON line.
 *
 * Run inside the sandbox by src/lsp/sandbox_test.ts as
 * `deno run -A --no-config escape_probe.ts '<json>'`, where the JSON names a
 * file to create in the workspace, canary files outside every bound path, a
 * TCP port the test listens on at 127.0.0.1, and the test's own PID.
 * No imports: the sandbox has no network and no module cache.
 *
 * @module
 */

interface ProbeInput {
  writeTarget: string;
  canaries: string[];
  port: number;
  hostPid: number;
  secretEnv: string;
}

/** The outcome of one attempt: ok, or the error's class name and message. */
type Attempt = { ok: true; value?: unknown } | { ok: false; error: string; message: string };

async function attempt(run: () => Promise<unknown>): Promise<Attempt> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { ok: false, error: e.name, message: e.message };
  }
}

const input: ProbeInput = JSON.parse(Deno.args[0]);

const report = {
  writeWorkspace: await attempt(() => Deno.writeTextFile(input.writeTarget, "escaped")),
  readCanaries: await Promise.all(
    input.canaries.map((path) => attempt(() => Deno.readTextFile(path))),
  ),
  connect: await attempt(async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: input.port });
    conn.close();
  }),
  writeHome: await attempt(async () => {
    const path = `${Deno.env.get("HOME")}/probe.txt`;
    await Deno.writeTextFile(path, "home");
    return path;
  }),
  pid: Deno.pid,
  hostPidVisible: (await attempt(() => Deno.stat(`/proc/${input.hostPid}`))).ok,
  processCount: [...Deno.readDirSync("/proc")].filter((e) => /^\d+$/.test(e.name)).length,
  secretEnv: Deno.env.get(input.secretEnv) ?? null,
  home: Deno.env.get("HOME") ?? null,
};

console.log(JSON.stringify(report));
