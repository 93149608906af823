import assert from "node:assert/strict";
import { REPO_ROOT } from "./program.ts";

/** One dependency of a module, as `deno info --json` lists it. */
export interface Dependency {
  isDynamic?: boolean;
  code?: { specifier?: string };
}

/** A module graph, as `deno info --json` prints it. */
export interface ModuleGraph {
  roots: string[];
  modules: { specifier: string; dependencies?: Dependency[] }[];
}

/** `deno info --json ENTRY` run in the repository: the module graph `entry` loads. */
export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(info.code, 0, new TextDecoder().decode(info.stderr));
  return JSON.parse(new TextDecoder().decode(info.stdout)) as ModuleGraph;
}
