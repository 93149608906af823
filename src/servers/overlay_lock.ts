// An overlay lock: files held while proposed texts stand in the servers' views of them (what-if,
// checked edits), restored from the disk on release.
import { LspGateError } from "../errors.ts";
import type { Telemetry } from "../telemetry.ts";
import type { Lease, OverlayLock } from "./manager_types.ts";

/** What an overlay lock needs of the manager. */
export interface OverlayDeps {
  telemetry?: Telemetry;
  /** Puts the disk's text back in the lease's server. */
  resync(lease: Lease): Promise<unknown>;
}

/** The lock over `paths`, already held exclusively; `unlock` lets other requests in again. */
export function overlayLock(
  paths: readonly string[],
  unlock: () => void,
  deps: OverlayDeps,
): OverlayLock {
  const telemetry = deps.telemetry;
  const overlaid = new Map<string, { lease: Lease }>();
  const held = new Set(paths);
  let startedAt: number | undefined;
  const restore = async ({ lease }: { lease: Lease }) => {
    const { entry, client, uri } = lease;
    // A server that exited meanwhile is restarted with its files read from disk.
    if (client.exited) return;
    try {
      await deps.resync(lease);
    } catch {
      // The disk's text cannot be read or sent: closed, the server goes by the disk itself.
      entry.disk.delete(uri);
      await client.closeDocument(uri).catch(() => {});
    }
  };
  return {
    paths: held,
    overlay: async (lease, text) => {
      if (!held.has(lease.file)) {
        throw new LspGateError("INTERNAL", `an overlay of ${lease.file}, which it does not hold`);
      }
      // Noted first: whatever happens to the change on its way, the release restores.
      overlaid.set(`${lease.entry.key}\u0000${lease.uri}`, { lease });
      if (startedAt === undefined) {
        startedAt = performance.now();
        telemetry?.emit("overlay.start", { server: lease.pick.adapter.id, files: held.size });
      }
      await lease.client.syncDocument(lease.uri, lease.pick.languageId, text);
    },
    release: async () => {
      const views = overlaid.size;
      try {
        await Promise.all([...overlaid.values()].map(restore));
      } finally {
        overlaid.clear();
        unlock();
        if (startedAt !== undefined) {
          telemetry?.emit("overlay.stop", {
            views,
            duration_ms: Math.round(performance.now() - startedAt),
          });
          startedAt = undefined;
        }
      }
    },
  };
}
