// rust-analyzer analyses the files a crate reaches from its roots (src/lib.rs, src/main.rs, bins,
// tests, examples, benches, build.rs, Cargo.toml's `path`s) through `mod` declarations. A .rs file
// no crate declares (forgotten, its `mod` line lost) is in no crate, and references, renames,
// callers and workspace symbols skip it, silently (measured with ra_ap_rust-analyzer 0.0.330:
// references to `hello` missed the call in src/orphan.rs and said `partial: false`, also when
// asked from that file). rust-analyzer cannot be made to search it (it would not build either),
// so the answer says which files no crate reaches: asked about a name, only those holding it.
// Files declared only under a `#[cfg]` that is off for the target are named too (rust_cfg.ts), and
// those under a cfg not known here (a feature) that rust-analyzer puts in no crate (measured: its
// experimental/parentModule answers null for them, as for an orphan, once the project is loaded).
import { join, resolve } from "../src/posix_path.ts";
import { toFileUrl } from "../src/servers/uri.ts";
import type { CoverageContext, CoverageHook } from "./coverage.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";
import { type CfgTarget, hostTarget } from "./rust_cfg.ts";
import { reachedFiles } from "./rust_modules.ts";

/** Per file list (the walk's, kept while no file is created or deleted), those unreached. */
const scanned = new WeakMap<readonly string[], Scan>();

interface Scan {
  /** The target its `#[cfg]`s were judged for. */
  target?: string;
  /** The state of each file the scan read (or found missing): a change to any means scan again. */
  stamps: Map<string, string | undefined>;
  /** Files no crate declares as a module. */
  left: string[];
  /** Files declared only under a `#[cfg]` that is off. */
  inactive: string[];
  /** Files declared only under a `#[cfg]` not known here: rust-analyzer is asked. */
  uncertain: string[];
  /** A crate root, whose parent rust-analyzer names once it has loaded the project. */
  probe?: string;
}

/**
 * Most files rust-analyzer is asked about per question; past them, an uncertain file counts as
 * seen and the others as the scan found them.
 */
const MAX_ASKED = 50;

/** See the file comment. */
export const rustAnalyzerCoverage: CoverageHook = async (context) => {
  const files = await context.files();
  const target = targetOf(context);
  let scan = scanned.get(files);
  if (!scan || scan.target !== target?.triple || !(await unchanged(scan))) {
    scan = await unreached(context, files, target);
    scanned.set(files, scan);
  }
  const found = {
    left: await holdingName(context, scan.left),
    inactive: await holdingName(context, scan.inactive),
    uncertain: await holdingName(context, scan.uncertain),
  };
  // rust-analyzer has the last word: a file it names a parent module of is analysed (a guard
  // against a misread), and an uncertain one it names none of is not.
  const parents = await parentCounts(
    context,
    scan.probe,
    [...found.uncertain, ...found.left, ...found.inactive].slice(0, MAX_ASKED),
  );
  const seen = (file: string) => (parents?.get(file) ?? 0) > 0;
  const left = found.left.filter((file) => !seen(file));
  const inactive = [
    ...found.inactive.filter((file) => !seen(file)),
    ...found.uncertain.filter((file) => parents?.get(file) === 0),
  ].sort();
  const parts = [
    ...(left.length
      ? [
        `${namedFiles(context, left)} (no crate declares ` +
        `${left.length === 1 ? "it as a module" : "them as modules"})`,
      ]
      : []),
    ...(inactive.length
      ? [`${namedFiles(context, inactive)} (declared under a #[cfg] its build turns off)`]
      : []),
  ];
  if (parts.length === 0) return { partial: false };
  return { partial: true, reason: `rust-analyzer does not analyse ${parts.join(" nor ")}` };
};

/**
 * How many parent modules rust-analyzer names for each of `files` (its parentModule; 0: the file
 * is in no crate; missing: no answer). Undefined until it names the parent of a crate root
 * (`probe`): before it has loaded the project it answers none for every file.
 */
async function parentCounts(
  context: CoverageContext,
  probe: string | undefined,
  files: readonly string[],
): Promise<Map<string, number> | undefined> {
  if (files.length === 0 || probe === undefined) return undefined;
  const parents = (file: string) =>
    context.client.request<unknown>("experimental/parentModule", {
      textDocument: { uri: toFileUrl(file) },
      position: { line: 0, character: 0 },
    }, { timeoutMs: 5_000, signal: context.signal })
      .then((found) => Array.isArray(found) ? found.length : 0, () => undefined);
  if (!(await parents(probe))) return undefined;
  const counts = new Map<string, number>();
  for (const file of files) {
    const count = await parents(file);
    if (count !== undefined) counts.set(file, count);
  }
  return counts;
}

/** The target whose cfgs rust-analyzer sets: the host's, unless its settings name another. */
function targetOf(context: CoverageContext): CfgTarget | undefined {
  const settings = context.client.options.settings?.["rust-analyzer"] as
    | { cargo?: { target?: unknown } }
    | undefined;
  return settings?.cargo?.target ? undefined : hostTarget();
}

/** Whether the files a scan read are as they were (no `mod` line added or taken away). */
async function unchanged(scan: Scan): Promise<boolean> {
  const paths = [...scan.stamps.keys()];
  for (let i = 0; i < paths.length; i += STAT_AT_ONCE) {
    const batch = paths.slice(i, i + STAT_AT_ONCE);
    const stamps = await Promise.all(batch.map(stamp));
    const same = (path: string, j: number) =>
      stamps[j] !== undefined && stamps[j] === scan.stamps.get(path);
    if (!batch.every(same)) return false;
  }
  return true;
}

const STAT_AT_ONCE = 64;

/** A file's identity and state; undefined (never the same) where it cannot be looked at. */
async function stamp(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    return `${info.ino}/${info.size}/${info.mtime?.getTime()}/${info.ctime?.getTime()}`;
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "missing" : undefined;
  }
}

/** The project's .rs files that none of its Cargo package's crates reaches. */
async function unreached(
  context: CoverageContext,
  files: readonly string[],
  target: CfgTarget | undefined,
): Promise<Scan> {
  const stamps = new Map<string, string | undefined>();
  const read = async (path: string) => {
    stamps.set(path, await stamp(path));
    return await context.readText(path);
  };
  const manifest = await read(join(context.root, "Cargo.toml"));
  // A virtual manifest's members are projects of their own; rust-project.json lists its crates.
  // Neither is judged here: taken to be seen whole, as before.
  const scan: Scan = { target: target?.triple, stamps, left: [], inactive: [], uncertain: [] };
  if (manifest === undefined || !/^\s*\[package\]/m.test(manifest)) return scan;
  const sources = files.filter((file) =>
    file.endsWith(".rs") && file.startsWith(context.root + "/") &&
    !file.slice(context.root.length + 1).split("/").some((part) =>
      part.startsWith(".") || part === "target"
    )
  );
  const roots = crateRoots(context.root, sources, manifest);
  const reach = await reachedFiles(roots, sources, read, target);
  if (!reach) return scan;
  // A file reached through a symlink (`#[path = "link.rs"]`) is listed by its real path.
  const listed = new Set(sources);
  for (const set of [reach.reached, reach.uncertain, reach.inactive]) {
    for (const file of [...set]) {
      if (listed.has(file)) continue;
      const real = await Deno.realPath(file).catch(() => undefined);
      if (real !== undefined) set.add(real);
    }
  }
  const { reached, uncertain, inactive } = reach;
  scan.probe = roots.find((file) => reached.has(file));
  scan.uncertain = sources.filter((file) => uncertain.has(file) && !reached.has(file));
  scan.inactive = sources.filter((file) =>
    inactive.has(file) && !reached.has(file) && !uncertain.has(file)
  );
  scan.left = sources.filter((file) =>
    !reached.has(file) && !inactive.has(file) && !uncertain.has(file)
  );
  return scan;
}

/** Cargo's auto-discovered targets, root-relative. */
const AUTO_TARGETS = new RegExp(
  "^(?:src/lib\\.rs|src/main\\.rs|build\\.rs|" +
    "(?:src/bin|tests|examples|benches)/(?:[^/]+\\.rs|[^/]+/main\\.rs))$",
);

/**
 * A package's crate roots: Cargo's target auto-discovery (src/lib.rs, src/main.rs, src/bin/,
 * tests/, examples/, benches/, build.rs), and every .rs path Cargo.toml names (`[lib]`, `[[bin]]`,
 * `build`, ...). A target Cargo.toml turns off (`autobins = false`) still counts: never missed.
 */
export function crateRoots(root: string, files: readonly string[], manifest: string): string[] {
  const roots = files.filter((file) =>
    file.startsWith(root + "/") && AUTO_TARGETS.test(file.slice(root.length + 1))
  );
  for (const line of manifest.split("\n")) {
    // TOML strings on one line; a # outside them starts a comment.
    for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(#)/g)) {
      if (match[3]) break;
      const value = match[1] ?? match[2];
      if (value.endsWith(".rs")) roots.push(resolve(root, value));
    }
  }
  return [...new Set(roots)];
}
