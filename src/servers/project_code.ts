/**
 * Servers that execute the repository's code to load a project and have no setting against it:
 * ElixirLS evaluates mix.exs and compiles the project, ruby-lsp runs Bundler on the Gemfile (Ruby),
 * kotlin-language-server runs Gradle build scripts, zls runs build.zig, sourcekit-lsp evaluates
 * Package.swift, haskell-language-server builds through cabal or stack (custom Setup.hs, Template
 * Haskell), C# servers evaluate MSBuild projects (tasks, analyzers, source generators). For a root
 * the user has not trusted they do not start where such a file is, and the error says why.
 *
 * @module
 */

import type { Adapter } from "./adapter.ts";
import { LspGateError } from "../errors.ts";

/** The build files (names, or a pattern for names) whose presence makes `adapter` run code. */
export interface ProjectCode {
  files: RegExp;
  /** What the server does with them, for the message ("evaluates mix.exs and compiles"). */
  what: string;
}

/** `adapter`, refusing to start for an untrusted root holding one of `code.files`. */
export function refusingProjectCode(adapter: Adapter, code: ProjectCode): Adapter {
  return {
    ...adapter,
    async resolve(context) {
      const found = context.trusted ? [] : await buildFiles(context.root, code.files);
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

async function buildFiles(root: string, pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (pattern.test(entry.name)) found.push(entry.name);
    }
  } catch {
    // No such folder: nothing there to run.
  }
  return found.sort();
}
