// gopls loads the packages of one build: its GOOS, GOARCH and tags. A Go file whose build
// constraints that build does not satisfy (`//go:build ignore`, a generator; `x_windows.go` or
// `//go:build windows` on Linux; a custom tag) is in none of its packages, and references, renames,
// callers and workspace symbols skip it, silently (measured with gopls v0.23: references to `Greet`
// missed the calls in all five such files, and opening them changed nothing). gopls cannot be made
// to search them (a build is one GOOS), so the answer says which it left out: asked about a name,
// only those that hold the name as a word. So does a go.work's: see go_work.ts.
import { basename } from "../src/posix_path.ts";
import { fromFileUrl } from "../src/servers/uri.ts";
import type { CoverageContext, CoverageHook } from "./coverage.ts";
import { outsideWorkView, type WorkView } from "./go_work.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";
import { type Build, buildOf, constraintMatches, nameMatches } from "./go_build.ts";

export { type Build, buildOf, constraintMatches, nameMatches };

/** Most files read for their build constraints; past them, a file is taken to be in the build. */
const MAX_READ = 5000;

/** Per file list (the walk's, kept while no file is created or deleted), those left out. */
const scanned = new WeakMap<readonly string[], { key: string; left: Promise<string[]> }>();

/** See the file comment. */
export const goplsCoverage: CoverageHook = async (context) => {
  const build = buildOf(context.client.options);
  const files = await context.files();
  const key = `${build.os}/${build.arch}/${[...build.tags].sort().join(",")}`;
  let scan = scanned.get(files);
  if (!scan || scan.key !== key) {
    scan = { key, left: leftOut(context, files, build) };
    scanned.set(files, scan);
  }
  const left = new Set(await scan.left);
  const holding = await holdingName(context, [...left]);
  const reasons = holding.length > 0 ? [buildReason(context, build, holding)] : [];
  const asked = fromFileUrl(context.uri);
  const outside = asked && await outsideWorkView(context, goFiles(context, files), asked);
  // A file the build leaves out is named once, there.
  const unseen = outside
    ? await holdingName(context, outside.files.filter((file) => !left.has(file)))
    : [];
  if (outside && unseen.length > 0) reasons.push(workReason(context, unseen, outside.alone));
  return reasons.length > 0 ? { partial: true, reason: reasons.join("; ") } : { partial: false };
};

/** Per file list, its Go files: one array while the list holds, which go_work.ts keys on. */
const goLists = new WeakMap<readonly string[], string[]>();

/** The project's Go files that may be in a package: not in testdata/, _x/, .x/, nor _x.go. */
function goFiles(context: CoverageContext, files: readonly string[]): string[] {
  let list = goLists.get(files);
  if (list) return list;
  list = files.filter((file) => {
    if (!file.endsWith(".go") || !file.startsWith(context.root + "/")) return false;
    const rel = file.slice(context.root.length + 1);
    return !rel.split("/").some((part) => part === "testdata" || /^[._]/.test(part));
  });
  goLists.set(files, list);
  return list;
}

/** The project's Go files the build leaves out by their names or their constraints. */
async function leftOut(
  context: CoverageContext,
  files: readonly string[],
  build: Build,
): Promise<string[]> {
  const left: string[] = [];
  let read = 0;
  for (const file of goFiles(context, files)) {
    if (!nameMatches(basename(file), build)) {
      left.push(file);
      continue;
    }
    if (read++ >= MAX_READ) continue;
    const text = await context.readText(file);
    if (text !== undefined && !constraintMatches(text, build)) left.push(file);
  }
  return left;
}

function buildReason(context: CoverageContext, build: Build, files: string[]): string {
  return `gopls's build (${build.os}/${build.arch}) leaves ${namedFiles(context, files)} out ` +
    `(build constraints): gopls did not search ${files.length === 1 ? "it" : "them"}`;
}

/** Files outside the view gopls answered from (go_work.ts). */
function workReason(context: CoverageContext, files: string[], alone: WorkView["alone"]): string {
  const named = namedFiles(context, files);
  if (alone === undefined) {
    return `${named} ${files.length === 1 ? "is" : "are"} in no module go.work uses: gopls did ` +
      `not search ${files.length === 1 ? "it" : "them"}`;
  }
  const folder = context.relative(alone.folder);
  return alone.module
    ? `go.work does not use the module ${folder}, so gopls answered from it and the packages ` +
      `it imports alone: it did not search ${named}`
    : `${folder} is in no module, so gopls answered from its package alone: it did not search ` +
      named;
}
