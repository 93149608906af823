// gopls loads the packages of one build: its GOOS, GOARCH and tags. A Go file whose build
// constraints that build does not satisfy (`//go:build ignore`, a generator; `x_windows.go` or
// `//go:build windows` on Linux; a custom tag) is in none of its packages, and references, renames,
// callers and workspace symbols skip it, silently (measured with gopls v0.23: references to `Greet`
// missed the calls in all five such files, and opening them changed nothing). gopls cannot be made
// to search them (a build is one GOOS), so the answer says which it left out: asked about a name,
// only those that hold the name as a word. So does a go.work's: see go_work.ts.
import { basename } from "node:path";
import { env } from "../src/fs.ts";
import type { ClientOptions } from "../src/lsp/client_types.ts";
import { fromFileUrl } from "../src/servers/uri.ts";
import type { CoverageContext, CoverageHook } from "./coverage.ts";
import { outsideWorkView, type WorkView } from "./go_work.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";

/** Go's GOOS values that count as `unix` in a build constraint. */
const UNIX = new Set(
  "aix android darwin dragonfly freebsd hurd illumos ios linux netbsd openbsd solaris".split(" "),
);
/** Every GOOS value a file name or constraint may name. */
const OS = new Set([...UNIX, ..."js nacl plan9 wasip1 windows zos".split(" ")]);
const ARCH = new Set(
  ("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 " +
    "mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm").split(" "),
);
/** Deno's names for the host, as Go spells them. */
const HOST_ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64" };

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

/** The build gopls loads, as its constraints are checked. */
export interface Build {
  os: string;
  arch: string;
  /** Every tag the build satisfies, but go1.N (all are taken as satisfied). */
  tags: Set<string>;
}

/** The build gopls loads: its GOOS, GOARCH, cgo, and GOFLAGS' or buildFlags' -tags. */
export function buildOf(options: ClientOptions): Build {
  const own = options.process.env ?? {};
  const get = (name: string) => own[name] ?? env(name);
  const os = get("GOOS") || (Deno.build.os as string);
  const arch = get("GOARCH") || HOST_ARCH[Deno.build.arch] || Deno.build.arch;
  const tags = new Set([os, arch, "gc"]);
  if (UNIX.has(os)) tags.add("unix");
  // Go's implied OS tags.
  if (os === "android") tags.add("linux");
  if (os === "illumos") tags.add("solaris");
  if (os === "ios") tags.add("darwin");
  if (get("CGO_ENABLED") !== "0") tags.add("cgo");
  const settings = (options.settings?.gopls ?? {}) as { buildFlags?: unknown };
  const flags = [
    ...(get("GOFLAGS") ?? "").split(/\s+/),
    ...(Array.isArray(settings.buildFlags) ? settings.buildFlags.map(String) : []),
  ];
  flags.forEach((flag, i) => {
    const value = /^--?tags=(.*)$/.exec(flag)?.[1] ??
      (/^--?tags$/.test(flag) ? flags[i + 1] : undefined);
    for (const tag of value?.split(/[,\s]+/) ?? []) if (tag) tags.add(tag);
  });
  return { os, arch, tags };
}

function satisfied(tag: string, build: Build): boolean {
  return build.tags.has(tag) || /^go1\.\d+$/.test(tag);
}

/** Go's file name rule: x_GOOS.go, x_GOARCH.go, x_GOOS_GOARCH.go (each also before _test). */
export function nameMatches(name: string, build: Build): boolean {
  const stem = name.slice(0, name.indexOf(".") === -1 ? undefined : name.indexOf("."));
  const at = stem.indexOf("_");
  if (at === -1) return true;
  const parts = stem.slice(at + 1).split("_");
  if (parts.at(-1) === "test") parts.pop();
  const [last, before] = [parts.at(-1), parts.at(-2)];
  if (before !== undefined && OS.has(before) && last !== undefined && ARCH.has(last)) {
    return satisfied(before, build) && satisfied(last, build);
  }
  if (last !== undefined && (OS.has(last) || ARCH.has(last))) return satisfied(last, build);
  return true;
}

/**
 * Whether the constraint in the file's header (the comments before `package`) holds: its
 * `//go:build` line, else its `// +build` lines (all of them, each an OR of ANDs).
 */
export function constraintMatches(text: string, build: Build): boolean {
  const plus: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("package ") || line === "package") break;
    const expr = /^\/\/go:build\s+(.*)$/.exec(line)?.[1];
    if (expr !== undefined) return evaluate(expr, build);
    const old = /^\/\/\s*\+build\s+(.*)$/.exec(line)?.[1];
    if (old !== undefined) plus.push(old);
  }
  return plus.every((line) =>
    line.split(/\s+/).some((term) =>
      term.split(",").every((atom) =>
        atom.startsWith("!") ? !satisfied(atom.slice(1), build) : satisfied(atom, build)
      )
    )
  );
}

/** A `//go:build` expression: ||, &&, !, parentheses, tags. Unreadable is taken as satisfied. */
function evaluate(expr: string, build: Build): boolean {
  const tokens = expr.replace(/\/\/.*$/, "").match(/\|\||&&|!|\(|\)|[\w.]+/g) ?? [];
  let at = 0;
  const or = (): boolean => {
    let value = and();
    while (tokens[at] === "||") {
      at++;
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = not();
    while (tokens[at] === "&&") {
      at++;
      value = not() && value;
    }
    return value;
  };
  const not = (): boolean => {
    const token = tokens[at++];
    if (token === "!") return !not();
    if (token === "(") {
      const value = or();
      at++;
      return value;
    }
    if (token === undefined) throw new Error("unexpected end");
    return satisfied(token, build);
  };
  try {
    const value = or();
    return at === tokens.length ? value : true;
  } catch {
    return true;
  }
}
