// What a session settles as it opens: an apply a killed lspgate left halfway, the memory budget,
// the trusted roots that can matter.
import { LspGateError, toLspGateError } from "./errors.ts";
import type { WorkspaceRoot } from "./permissions/workspace.ts";
import type { Role } from "./permissions/policy.ts";
import { pendingJournal, recoverRoot } from "./actions/transaction.ts";
import { defaultBudgetMiB } from "./servers/memory.ts";

/**
 * Finishes or undoes an apply a killed lspgate left halfway in this root (transaction.ts), when
 * this session may write; otherwise only says one is pending. Its notices, empty when none.
 */
export async function recoverApplies(
  workspace: WorkspaceRoot,
  options: { role: Role; allowMutations: boolean },
): Promise<string[]> {
  try {
    if (options.role !== "main" || !options.allowMutations) {
      return await pendingJournal(workspace.path)
        ? [
          "An apply in this root was interrupted halfway; it is finished or undone by the next " +
          "lspgate started here with --allow-mutations.",
        ]
        : [];
    }
    const note = await recoverRoot(workspace.path, {
      relative: (p) => workspace.relative(p),
      checkFolder: async (p) => {
        const folder = p.slice(0, p.lastIndexOf("/"));
        if ((await Deno.realPath(folder)) !== folder) {
          throw new LspGateError("OUTSIDE_WORKSPACE", `${p} moved outside the workspace.`);
        }
      },
    });
    return note ? [note] : [];
  } catch (error) {
    const message = `An interrupted apply in this root could not be recovered: ${
      toLspGateError(error).message
    }`;
    console.error(`lspgate: ${message}`);
    return [message];
  }
}

/** The memory budget in force: the config's (0 = none), else half the machine's memory. */
export function budgetOf(configured: number | undefined): number | undefined {
  if (configured === 0) return undefined;
  return configured ?? defaultBudgetMiB();
}

/** Real paths of the trusted roots that exist and overlap the workspace (the rest cannot matter). */
export async function realFolders(paths: string[], workspace: string): Promise<string[]> {
  const real: string[] = [];
  for (const path of paths) {
    try {
      const found = await Deno.realPath(path);
      const overlaps = found === workspace || found.startsWith(workspace + "/") ||
        workspace.startsWith(found + "/");
      if (overlaps) real.push(found);
    } catch {
      // A trusted root that does not exist trusts nothing.
    }
  }
  return real;
}
