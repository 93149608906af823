// Helpers for hostile-repository tests: a workspace with a folder outside it, and the real
// lspgate (`deno run mod.ts`) answering JSON lines over it.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { LSPGATE_DIR } from "./fixture.ts";

/** What a hostile program prints: it must appear in no answer. */
export const SECRET = "SECRET-7f3a9c-hostile";

/** A workspace under `base/ws` and a folder outside it where a hostile program would leave marks. */
export interface HostileRepo {
  base: string;
  root: string;
  outside: string;
}

export async function hostileRepo(files: Record<string, string>): Promise<HostileRepo> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_hostile_" }));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await Deno.mkdir(outside, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text.replaceAll("$OUTSIDE", outside));
    if (/(^|\/)\.?bin\//.test(rel)) await Deno.chmod(path, 0o755);
  }
  return { base, root, outside };
}

/** A program that leaves a mark outside the workspace, prints a secret, and fails. */
export function evilScript(name: string): string {
  return `#!/bin/sh\necho ran > "$OUTSIDE/marker-${name}"\necho "${SECRET}"\n` +
    `echo "${SECRET}" >&2\nexit 1\n`;
}

/** Node code that leaves a mark outside when loaded. */
export function evilModule(name: string): string {
  return `require("fs").writeFileSync(${JSON.stringify(`$OUTSIDE/marker-${name}`)}, "ran");\n` +
    `console.error(${JSON.stringify(SECRET)});\n`;
}

/** Runs lspgate over `root` with `requests` on stdin; returns the response lines and stderr. */
export async function runLspgate(
  root: string,
  requests: Record<string, unknown>[],
  options: { flags?: string[]; path?: string; env?: Record<string, string> } = {},
): Promise<{ lines: Record<string, unknown>[]; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(LSPGATE_DIR, "mod.ts"), "--root", root, ...(options.flags ?? [])],
    cwd: root,
    env: { ...options.env, ...(options.path ? { PATH: options.path } : {}) },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  // One at a time: each answer before the next question, so order is the test's.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let stdout = "";
  const lines: Record<string, unknown>[] = [];
  for (const request of requests) {
    await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`lspgate exited before answering ${JSON.stringify(request)}`);
      buffered += value;
      stdout += value;
    }
    const cut = buffered.indexOf("\n");
    lines.push(JSON.parse(buffered.slice(0, cut)));
    buffered = buffered.slice(cut + 1);
  }
  await writer.close();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
  }
  const stderr = await new Response(child.stderr).text();
  const status = await child.status;
  assert.equal(status.code, 0, stderr);
  return { lines, stdout, stderr };
}

export async function markers(outside: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(outside)) found.push(entry.name);
  return found.sort();
}

export function ok(line: Record<string, unknown>): Record<string, unknown> {
  assert.equal(line.ok, true, JSON.stringify(line));
  return line.details as Record<string, unknown>;
}

/** PATH for lspgate: the test runner's (user-installed servers), with `first` in front. */
export function pathWith(...first: string[]): string {
  return [...first, Deno.env.get("PATH") ?? ""].join(":");
}
