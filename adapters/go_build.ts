// Go's build rules as gopls applies them to a file: the build (GOOS, GOARCH, tags) a client's
// gopls loads, a file name's `_GOOS_GOARCH` suffix, its `//go:build` or `// +build` constraint.
// Shared by gopls's coverage hook and its diagnostics hook, which runs in the server's client:
// no Deno API and no file access here.
import type { ClientOptions } from "../src/lsp/client_types.ts";

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
  // lspgate's own environment and platform, as the manager gave them (no Deno API here: the
  // diagnostics hook runs in the client, client_wall_test).
  const host = options.host ?? { os: "linux", arch: "x86_64", env: {} };
  const get = (name: string) => own[name] ?? host.env[name];
  const os = get("GOOS") || host.os;
  const arch = get("GOARCH") || HOST_ARCH[host.arch] || host.arch;
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

/**
 * Whether some GOOS and GOARCH (the build's other tags kept) holds a file: gopls makes a view of
 * such a build for a file the default one leaves out; a file only a tag holds (`ignore`, `race`,
 * `!go1.5`, a custom one) it cannot check right (a reviewer's find: 5,112 errors on
 * golang.org/x/sys, which builds clean, most in a `//go:build ignore` cgo input).
 */
export function someBuildHolds(name: string, text: string, build: Build): boolean {
  const platform = (tag: string) => OS.has(tag) || ARCH.has(tag) || tag === "unix" || tag === "gc";
  const kept = [...build.tags].filter((tag) => !platform(tag));
  for (const os of OS) {
    for (const arch of ARCH) {
      const tags = new Set([...kept, os, arch, "gc"]);
      if (UNIX.has(os)) tags.add("unix");
      if (os === "android") tags.add("linux");
      if (os === "illumos") tags.add("solaris");
      if (os === "ios") tags.add("darwin");
      const other = { os, arch, tags };
      if (nameMatches(name, other) && constraintMatches(text, other)) return true;
    }
  }
  return false;
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
