// The names of lspgate's own files beside a file it replaces (a new text before it is renamed into
// place, an original kept until an apply is done): free of node: imports so the watcher's Worker
// can tell them apart too.

/** What a side file holds: a new text (`tmp`) or the original it replaces (`orig`). */
export type SideKind = "tmp" | "orig";

const SIDE_NAME =
  /^\.[^/]*\.lspgate-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(tmp|orig)$/;

/**
 * A fresh side-file name for `base` (a file name, no folder): hidden, with lspgate's mark, a random
 * id and an extension no language server claims, so servers and the watcher pass over it.
 */
export function sideName(base: string, kind: SideKind): string {
  // Cut the name so a 255-byte file name still leaves room for the suffix.
  return `.${base.slice(0, 80)}.lspgate-${crypto.randomUUID()}.${kind}`;
}

/** Whether a file name (no folder) is one sideName() makes. */
export function isSideName(name: string): boolean {
  return SIDE_NAME.test(name);
}
