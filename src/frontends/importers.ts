// The files that import a file, found by reading their import lines: what a post-edit hook checks
// beside the edited file, so an edit that breaks a caller elsewhere is reported.
import { basename, extname } from "../posix_path.ts";
import type { WorkspacePath, WorkspaceRoot } from "../permissions/workspace.ts";
import { compareText } from "../compare.ts";

/** How one language family names another file in an import. */
interface Family {
  extensions: string[];
  /** A line importing the module whose file stem is `stem`. */
  imports(stem: string): RegExp;
}

const FAMILIES: Family[] = [
  {
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    imports: (stem) =>
      new RegExp(
        String
          .raw`(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'][^"']*\b${stem}(?:\.[cm]?[jt]sx?)?["']`,
      ),
  },
  {
    extensions: [".py", ".pyi"],
    imports: (stem) =>
      new RegExp(String.raw`^\s*(?:from\s+[.\w]*\b${stem}\b|import\s+[.\w, ]*\b${stem}\b)`, "m"),
  },
  {
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"],
    imports: (stem) => new RegExp(String.raw`#\s*include\s*["<][^">]*\b${stem}\.h(?:h|pp|xx)?[">]`),
  },
  {
    extensions: [".rs"],
    imports: (stem) =>
      new RegExp(String.raw`\b(?:use\s+(?:crate|super|self)::${stem}\b|mod\s+${stem}\b)`),
  },
];

const MAX_SCANNED = 2_000;
const MAX_FILE_BYTES = 256 * 1024;

/**
 * Files in the workspace whose import lines name `file`'s module (same language family), at most
 * `limit`, nearest folders first. Reads go through the workspace boundary; heavy folders
 * (node_modules, .git) are skipped.
 */
export async function findImporters(
  workspace: WorkspaceRoot,
  file: WorkspacePath,
  limit = 16,
): Promise<WorkspacePath[]> {
  const extension = extname(file).toLowerCase();
  const family = FAMILIES.find((f) => f.extensions.includes(extension));
  if (!family) return [];
  const stem = escape(basename(file).slice(0, basename(file).length - extname(file).length));
  if (!stem) return [];
  const pattern = family.imports(stem);
  const glob = `**/*.{${family.extensions.map((e) => e.slice(1)).join(",")}}`;
  const { paths } = await workspace.glob(glob, { limit: MAX_SCANNED });
  const folder = file.slice(0, file.lastIndexOf("/"));
  // Files near the edited one first: the likeliest importers, and the ones a deadline keeps.
  const ordered = paths.filter((p) => p !== file).sort((a, b) =>
    distance(a, folder) - distance(b, folder) || compareText(a, b)
  );
  const found: WorkspacePath[] = [];
  for (const path of ordered) {
    if (found.length >= limit) break;
    try {
      if ((await Deno.stat(path)).size > MAX_FILE_BYTES) continue;
      if (pattern.test(await workspace.readText(path))) found.push(path);
    } catch {
      // Unreadable or gone: not an importer we can check.
    }
  }
  return found;
}

function distance(path: string, folder: string): number {
  const a = path.split("/");
  const b = folder.split("/");
  let common = 0;
  while (common < a.length - 1 && common < b.length && a[common] === b[common]) common++;
  return (a.length - 1 - common) + (b.length - common);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
