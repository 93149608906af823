// Orders text by UTF-16 code units, as Array.prototype.sort() does by default. Not localeCompare:
// its first call loads ICU's collation data (9–17 ms here), which a first answer paid for (its
// references sorted by file, a clangd project's sources listed); paths and URIs need no locale.

/** Negative, zero or positive as `a` sorts before, with or after `b` (by code units). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
