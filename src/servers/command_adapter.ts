import { basename, dirname, isAbsolute } from "../posix_path.ts";
import type { Adapter, AdapterContext, ServerCommand } from "./adapter.ts";
import { findBinary, realPath } from "./find_binary.ts";
import { LspGateError } from "../errors.ts";
import { withRuntime } from "./runtime_paths.ts";

/** An adapter whose server is one program found by name, described as data. */
export type CommandAdapterSpec =
  & Omit<Adapter, "resolve" | "installed" | "readiness" | "priority">
  & Partial<Pick<Adapter, "readiness" | "priority">>
  & {
    /** argv: the program (a name looked up on PATH and in lspgate's tools folders) and its flags. */
    command: string[];
    /** Other names the same server's program goes by, tried in order after `command[0]`. */
    alternatives?: string[];
    /** Rejects a found program that is not this server (e.g. another package's alias of it). */
    accept?(realPath: string): boolean;
  };

/**
 * Builds an adapter from data: the program is found on PATH or in lspgate's tools folders (a
 * trusted root's `node_modules/.bin` first), never elsewhere in the workspace; a user-configured
 * command replaces it.
 */
export function commandAdapter(spec: CommandAdapterSpec): Adapter {
  const { command, alternatives = [], accept, ...data } = spec;
  const [program, ...args] = command;
  const names = [program, ...alternatives];
  const find = async (context: FindContext) => {
    for (const name of names) {
      const found = await findOne(name, context);
      if (found && (!accept || accept(await realPath(found)))) return found;
    }
    return undefined;
  };
  // The program's interpreter and its installation are shown to it in the sandbox.
  return withRuntime({
    readiness: "immediate",
    priority: 10,
    ...data,
    async installed({ workspace }) {
      return (await find({ root: workspace, workspace, trusted: false })) !== undefined;
    },
    async resolve(context): Promise<ServerCommand> {
      // A command from the user's config is found the same way: by absolute path, or by name on
      // PATH and in the tools folders (never inside the workspace).
      const [wanted, ...wantedArgs] = context.configuredCommand ?? [];
      const found = wanted === undefined ? await find(context) : await findOne(wanted, context);
      if (!found) {
        throw new LspGateError(
          "SERVER_NOT_INSTALLED",
          `${wanted ?? names.join(" / ")} was not found ` +
            (wanted?.startsWith("/") ? "" : "on PATH or in lspgate's tools folder") +
            `. ${spec.installHint}`,
          { server: spec.id },
        );
      }
      return {
        command: [found, ...(wanted === undefined ? args : wantedArgs)],
        installDir: installDirOf(await realPath(found)),
        fromWorkspace: found.startsWith(context.workspace + "/"),
      };
    },
  });
}

type FindContext = Pick<AdapterContext, "root" | "workspace" | "trusted">;

/** A program by absolute path (if it is there), or by name on PATH and in the tools folders. */
async function findOne(name: string, context: FindContext): Promise<string | undefined> {
  if (isAbsolute(name)) return await isFile(name) ? name : undefined;
  return await findBinary(name, context);
}

/**
 * The folder a server's files live in, for the sandbox to bind read-only: for an npm package,
 * the `node_modules` folder holding it (its dependencies are hoisted beside it); otherwise the
 * program's own folder.
 */
export function installDirOf(program: string): string {
  for (let dir = dirname(program); dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) === "node_modules") return dir;
  }
  return dirname(program);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
