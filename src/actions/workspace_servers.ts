import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";

/** A server to ask a workspace-wide question, held until released. */
export interface WorkspaceServer {
  id: string;
  client: ServerClient;
  release(): void;
}

/**
 * The servers that can answer for the whole workspace: for each adapter, one file it handles is
 * opened (which starts its server and, for tsserver, gives it a project to search).
 */
export async function workspaceServers(context: ActionContext): Promise<WorkspaceServer[]> {
  const servers: WorkspaceServer[] = [];
  const seen = new Set<string>();
  for (const adapter of context.manager.options.adapters) {
    const extensions = Object.keys(adapter.languages).map((e) => e.slice(1));
    const pattern = extensions.length === 1
      ? `**/*.${extensions[0]}`
      : `**/*.{${extensions.join(",")}}`;
    const found = await context.workspace.glob(pattern, { limit: 1 });
    const file = found.paths[0];
    if (!file) continue;
    const pick = await context.manager.pick(file);
    if (!pick || pick.adapter.id !== adapter.id) continue;
    const key = `${pick.adapter.id}@${pick.root}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const lease = await context.manager.acquire(file, context.signal);
      servers.push({ id: pick.adapter.id, client: lease.client, release: lease.release });
    } catch {
      // A server that is not installed simply does not take part in the search.
    }
  }
  return servers;
}
