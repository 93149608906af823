/**
 * What a server's program needs to run, wherever its user installed it: the interpreter its
 * script names (`#!/usr/bin/env node`, a virtualenv's `#!/…/venv/bin/python`) and that
 * interpreter's installation (nvm's node, pyenv's Python, a virtualenv and the Python it was made
 * from), for the sandbox to show read-only.
 *
 * Rationale (issue 15): the sandbox showed a server its own folder and the system's `/usr` only,
 * so basedpyright installed with pip into a virtualenv failed with `bwrap: execvp …: No such file
 * or directory` (the venv's python links to a Python outside it), and a server run by nvm's node
 * could not start at all. Found from files alone: no program is run to learn it.
 *
 * @module
 */

import { basename, dirname, join } from "../posix_path.ts";
import type { Adapter, ServerCommand } from "./adapter.ts";
import { onPath, realPath, serverPath } from "./find_binary.ts";
import { env, pathExists } from "../fs.ts";

/** Folders shown whole by every sandbox: what lies in them needs no binding of its own. */
const SYSTEM = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/"];

/** How deep a script may name interpreters that are scripts (a pyenv shim runs bash). */
const MAX_HOPS = 3;

/** Host folders (and environment) `program` needs to run, besides its own install folder. */
export async function runtimeOf(
  program: string,
  workspace: string,
): Promise<{ paths: string[]; env: Record<string, string> }> {
  const paths: string[] = [];
  const extra: Record<string, string> = {};
  let current: string | undefined = program;
  for (let hop = 0; current && hop < MAX_HOPS; hop++) {
    const interpreter: string | undefined = await interpreterOf(current, workspace);
    if (!interpreter) break;
    const found = await installationOf(interpreter, workspace);
    paths.push(...found.paths);
    Object.assign(extra, found.env);
    current = found.program;
  }
  return { paths: unique(paths), env: extra };
}

/**
 * An adapter whose found program also gets its runtime shown read-only (see {@link runtimeOf}),
 * unless the program comes from the workspace (a trusted root's own: its shebang is the
 * repository's say, and the workspace is shown already).
 */
export function withRuntime(adapter: Adapter): Adapter {
  return {
    ...adapter,
    async resolve(context): Promise<ServerCommand> {
      const command = await adapter.resolve(context);
      const [program] = command.command;
      if (command.fromWorkspace || !program?.startsWith("/")) return command;
      const runtime = await runtimeOf(program, context.workspace);
      if (!runtime.paths.length && !Object.keys(runtime.env).length) return command;
      return {
        ...command,
        readOnlyPaths: unique([...command.readOnlyPaths ?? [], ...runtime.paths]),
        env: { ...runtime.env, ...command.env },
      };
    },
  };
}

/**
 * The interpreter a script's `#!` line names, as a host path: `#!/usr/bin/env NAME` is looked up
 * on PATH (outside the workspace), as `env` would inside. Undefined for a binary.
 */
export async function interpreterOf(
  program: string,
  workspace: string,
): Promise<string | undefined> {
  const line = await firstLine(await realPath(program));
  if (!line?.startsWith("#!")) return undefined;
  const words = line.slice(2).trim().split(/\s+/);
  if (basename(words[0] ?? "") !== "env") return words[0] || undefined;
  // `#!/usr/bin/env -S node --flag`: the first word that is not an option.
  const name = words.slice(1).find((word) => !word.startsWith("-") && !word.includes("="));
  if (!name) return undefined;
  return name.startsWith("/") ? name : await onPath(name, workspace);
}

/**
 * What running `interpreter` reads: a virtualenv it is in (pyvenv.cfg beside its bin/), the
 * installation its real binary lives in (`<prefix>/bin/<name>` → `<prefix>`), and for a pyenv
 * shim, the Python version it would run. `program` is the next script to look into, if any.
 */
export async function installationOf(
  interpreter: string,
  workspace?: string,
): Promise<{ paths: string[]; env: Record<string, string>; program?: string }> {
  const paths: string[] = [];
  const venv = dirname(dirname(interpreter));
  if (await pathExists(join(venv, "pyvenv.cfg"))) paths.push(venv);
  const shim = await pyenvTarget(interpreter);
  const real = await realPath(shim ?? interpreter);
  const prefix = installPrefix(real);
  if (prefix) paths.push(prefix);
  // A link to it in a PATH folder of its own (`#!/usr/bin/env node` finds the link first).
  const folder = dirname(interpreter);
  const found: Record<string, string> = {};
  if (!shim && real !== interpreter && !SYSTEM.some((dir) => interpreter.startsWith(dir))) {
    if (folder !== env("HOME") && folder.split("/").length > 2) paths.push(folder);
    else {
      // The link is in HOME itself, which is never shown: the real one's folder is searched last
      // (after PATH as every server gets it: without folders inside the workspace).
      const path = workspace === undefined ? undefined : serverPath(workspace);
      if (path !== undefined) found.PATH = `${path}:${dirname(real)}`;
    }
  }
  const user = /python/.test(basename(real)) ? await pythonUserSite() : undefined;
  if (user) paths.push(...user.paths);
  return { paths, env: { ...found, ...user?.env }, program: real };
}

/**
 * pip's `--user` installs (`~/.local/lib/pythonX.Y`): Python finds them through HOME, which is
 * private in the sandbox, so PYTHONUSERBASE names the real one.
 */
async function pythonUserSite(): Promise<
  { paths: string[]; env: Record<string, string> } | undefined
> {
  const home = env("HOME");
  const base = env("PYTHONUSERBASE") || (home ? join(home, ".local") : undefined);
  if (!base) return undefined;
  const paths: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(base, "lib"))) {
      if (entry.isDirectory && entry.name.startsWith("python")) {
        paths.push(join(base, "lib", entry.name));
      }
    }
  } catch {
    return undefined;
  }
  return paths.length ? { paths, env: { PYTHONUSERBASE: base } } : undefined;
}

/** The folder an interpreter is installed in, when no sandbox shows it already. */
function installPrefix(real: string): string | undefined {
  if (SYSTEM.some((dir) => real.startsWith(dir))) return undefined;
  const bin = dirname(real);
  const prefix = basename(bin) === "bin" ? dirname(bin) : bin;
  // Never a home folder (or /) whole: ~/bin/node shows ~/bin only.
  const home = env("HOME");
  if (prefix === "/" || prefix === home || prefix.split("/").length <= 2) return bin;
  return prefix;
}

/**
 * A pyenv shim (`<PYENV_ROOT>/shims/python3`, a bash script that runs pyenv) stands for the
 * user's global version's interpreter: `<PYENV_ROOT>/versions/<version>/bin/python3`.
 */
export async function pyenvTarget(path: string): Promise<string | undefined> {
  const shims = dirname(path);
  if (basename(shims) !== "shims") return undefined;
  const root = dirname(shims);
  let version = env("PYENV_VERSION")?.split(":")[0];
  if (!version) {
    try {
      version = (await Deno.readTextFile(join(root, "version"))).split(/\s+/)[0];
    } catch {
      return undefined;
    }
  }
  if (!version || version === "system") return undefined;
  const target = join(root, "versions", version, "bin", basename(path));
  return await pathExists(target) ? target : undefined;
}

async function firstLine(path: string): Promise<string | undefined> {
  try {
    const file = await Deno.open(path);
    try {
      const buffer = new Uint8Array(256);
      const read = await file.read(buffer);
      if (!read) return undefined;
      return new TextDecoder().decode(buffer.subarray(0, read)).split("\n")[0];
    } finally {
      file.close();
    }
  } catch {
    return undefined;
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
