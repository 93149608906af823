/**
 * Servers that execute the repository's code to load a project and have no setting against it:
 * ElixirLS evaluates mix.exs and compiles the project, ruby-lsp runs Bundler on the Gemfile (Ruby),
 * kotlin-language-server runs Gradle build scripts, zls runs build.zig, sourcekit-lsp evaluates
 * Package.swift, haskell-language-server builds through cabal or stack (custom Setup.hs, Template
 * Haskell), C# servers evaluate MSBuild projects (tasks, analyzers, source generators),
 * lua-language-server runs a `.luarc.json`'s `runtime.plugin` (Lua), terraform-ls runs the provider
 * binaries under `.terraform` (`terraform providers schema`). For a root
 * the user has not trusted they do not start where such a file is, and the error says why.
 *
 * @module
 */

import { join } from "../posix_path.ts";
import type { Adapter } from "./adapter.ts";
import { LspGateError } from "../errors.ts";

/** The build files (names, or a pattern for names) whose presence makes `adapter` run code. */
export interface ProjectCode {
  files: RegExp;
  /** Only a file whose text matches this counts (a config that may, or may not, name code). */
  naming?: RegExp;
  /** What the server does with them, for the message ("evaluates mix.exs and compiles"). */
  what: string;
}

/** `adapter`, refusing to start for an untrusted root holding one of `code.files`. */
export function refusingProjectCode(adapter: Adapter, code: ProjectCode): Adapter {
  return {
    ...adapter,
    async resolve(context) {
      const found = context.trusted ? [] : await buildFiles(context.root, code);
      if (found.length) {
        throw new LspGateError(
          "SERVER_START_FAILED",
          `${adapter.id} is not started: it ${code.what} (${found.join(", ")}: repository ` +
            "code) to load the project, and the root is not trusted (`--trust` runs it, " +
            "sandboxed)",
          { server: adapter.id, files: found },
        );
      }
      return await adapter.resolve(context);
    },
  };
}

async function buildFiles(root: string, code: ProjectCode): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (!code.files.test(entry.name)) continue;
      if (code.naming && !(await names(join(root, entry.name), code.naming))) continue;
      found.push(entry.name);
    }
  } catch {
    // No such folder: nothing there to run.
  }
  return found.sort();
}

/** Whether the file at `path` (a small config; unreadable counts as naming code) matches. */
async function names(path: string, pattern: RegExp): Promise<boolean> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size > 1_000_000) return true;
    return pattern.test(await Deno.readTextFile(path));
  } catch {
    return true;
  }
}
