// A server's program is checked before it is spawned, so a missing one is said as such.
import { LspGateError } from "../errors.ts";
import type { Adapter, ServerCommand } from "./adapter.ts";
import { onPath } from "./find_binary.ts";

/**
 * The program must exist before it is spawned (a sandbox would only say "execvp failed"): a
 * configured command named without a path is looked up as servers are (PATH and lspgate's tools,
 * never the workspace). Missing: SERVER_NOT_INSTALLED with the adapter's install hint.
 */
export async function checkProgram(
  adapter: Adapter,
  command: ServerCommand,
  workspace: string,
): Promise<void> {
  const [program] = command.command;
  const found = program.includes("/") ? program : await onPath(program, workspace);
  let executable = false;
  if (found) {
    try {
      const info = Deno.statSync(found);
      executable = info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
    } catch (error) {
      // Not ours to look at (no --allow-read there): the spawn says what Deno allows.
      const denied = error instanceof Deno.errors.NotCapable ||
        error instanceof Deno.errors.PermissionDenied;
      if (denied) return;
      executable = false;
    }
  }
  if (!found || !executable) {
    throw new LspGateError(
      "SERVER_NOT_INSTALLED",
      `${program} was not found for ${adapter.id}. ${adapter.installHint}`,
      { server: adapter.id, command: command.command },
    );
  }
  command.command = [found, ...command.command.slice(1)];
}
