// A throwaway workspace with a hostile neighbourhood, for the permission tests.
import assert from "node:assert/strict";
import { join } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import { WorkspaceRoot } from "./workspace.ts";

/** The files outside the workspace that must never be read or written. */
export const CANARY = "canary: outside the workspace\n";

/** Paths of one fixture; `remove()` deletes it all. */
export interface Fixture {
  base: string;
  ws: string;
  outside: string;
  lib: string;
  remove(): Promise<void>;
}

/**
 * Builds, under a fresh temp dir:
 * ws/{src/a.ts, src/ünï cödé 😀.ts, link_in.ts → src/a.ts, link_out.txt → outside/secret.txt,
 *     dir_out → outside, node_modules/pkg/index.ts, .git/config.ts}, ws-evil/x.ts,
 * outside/{secret.txt, inner.ts}, lib/std.ts.
 */
export async function makeFixture(): Promise<Fixture> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-perm-" }));
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  const lib = join(base, "lib");
  for (const dir of ["ws/src", "ws/node_modules/pkg", "ws/.git", "ws-evil", "outside", "lib"]) {
    await Deno.mkdir(join(base, dir), { recursive: true });
  }
  await Deno.writeTextFile(join(ws, "src/a.ts"), "export const a = 1;\n");
  await Deno.writeTextFile(join(ws, "src/ünï cödé 😀.ts"), "export const u = 1;\n");
  await Deno.writeTextFile(join(ws, "node_modules/pkg/index.ts"), "export {};\n");
  await Deno.writeTextFile(join(ws, ".git/config.ts"), "export {};\n");
  await Deno.writeTextFile(join(base, "ws-evil/x.ts"), CANARY);
  await Deno.writeTextFile(join(outside, "secret.txt"), CANARY);
  await Deno.writeTextFile(join(outside, "inner.ts"), CANARY);
  await Deno.writeTextFile(join(lib, "std.ts"), "export const std = 1;\n");
  await Deno.symlink("src/a.ts", join(ws, "link_in.ts"));
  await Deno.symlink("../outside/secret.txt", join(ws, "link_out.txt"));
  await Deno.symlink("../outside", join(ws, "dir_out"));
  return {
    base,
    ws,
    outside,
    lib,
    remove: () => Deno.remove(base, { recursive: true }),
  };
}

/** Asserts that `promise` rejects with an LspGateError of `code`, and returns it. */
export async function assertCode(promise: Promise<unknown>, code: string): Promise<LspGateError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    assert.ok(error instanceof LspGateError, `expected LspGateError ${code}, got ${error}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but it resolved to ${JSON.stringify(value)}`);
}

/** Asserts that every file outside the workspace still holds the canary, and nothing new appeared. */
export async function assertOutsideUntouched(fixture: Fixture): Promise<void> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(fixture.outside)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["inner.ts", "secret.txt"]);
  assert.equal(await Deno.readTextFile(join(fixture.outside, "secret.txt")), CANARY);
  assert.equal(await Deno.readTextFile(join(fixture.outside, "inner.ts")), CANARY);
  assert.equal(await Deno.readTextFile(join(fixture.base, "ws-evil/x.ts")), CANARY);
}

/** Runs `fn` on a fresh fixture's WorkspaceRoot, then checks nothing outside was touched. */
export async function withWorkspace(
  fn: (root: WorkspaceRoot, fx: Fixture) => Promise<void>,
  options: { readOnly?: (fx: Fixture) => string[] } = {},
): Promise<void> {
  const fx = await makeFixture();
  try {
    const root = await WorkspaceRoot.open(fx.ws, { readOnlyRoots: options.readOnly?.(fx) });
    await fn(root, fx);
    await assertOutsideUntouched(fx);
  } finally {
    await fx.remove();
  }
}

/** The refusal with the caller's own input taken out: what it says about anything else. */
export function withoutInput(
  error: { code: string; message: string; data?: unknown },
  input: string,
) {
  const quoted = JSON.stringify(input);
  assert.ok(error.message.includes(quoted), `${error.message} does not quote ${quoted}`);
  const data = error.data as { path?: unknown } | undefined;
  return JSON.stringify({
    code: error.code,
    message: error.message.split(quoted).join("<input>"),
    data: data && { ...data, path: data.path === input ? "<input>" : data.path },
  });
}
