import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";

/** A server to ask a workspace-wide question, held until released. */
export interface WorkspaceServer {
  id: string;
  client: ServerClient;
  release(): void;
}

const MAX_SERVERS = 8;
const FILES_SCANNED = 5000;

/**
 * The servers that can answer for the whole workspace: one per (adapter, project root), each
 * started by opening one file of its project (which also gives tsserver a project to search).
 * At most MAX_SERVERS; `capped` says when projects were left out.
 */
export async function workspaceServers(
  context: ActionContext,
): Promise<{ servers: WorkspaceServer[]; capped: boolean }> {
  const servers: WorkspaceServer[] = [];
  const seen = new Set<string>();
  let capped = false;
  const primaries = context.manager.options.adapters.filter((a) => a.kind !== "linter");
  for (const adapter of primaries) {
    const extensions = Object.keys(adapter.languages).map((e) => e.slice(1));
    const pattern = extensions.length === 1
      ? `**/*.${extensions[0]}`
      : `**/*.{${extensions.join(",")}}`;
    const found = await context.workspace.glob(pattern, { limit: FILES_SCANNED });
    const folders = new Set<string>();
    for (const file of found.paths) {
      // One file per folder is enough to learn the folder's project.
      const folder = file.slice(0, file.lastIndexOf("/"));
      if (folders.has(folder)) continue;
      folders.add(folder);
      const pick = await context.manager.pick(file);
      if (!pick || pick.adapter.id !== adapter.id) continue;
      const key = `${pick.adapter.id}@${pick.root}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (servers.length >= MAX_SERVERS) {
        capped = true;
        break;
      }
      try {
        const lease = await context.manager.acquire(file, context.signal);
        servers.push({ id: pick.adapter.id, client: lease.client, release: lease.release });
      } catch {
        // A server that is not installed simply does not take part in the search.
      }
    }
  }
  return { servers, capped };
}
