// Which .rs files a Cargo package's crates reach: from its crate roots through `mod` declarations,
// resolved as rust-analyzer resolves them (hir-def's mod_resolution.rs): `mod x;` is x.rs or
// x/mod.rs in the declaring module's folder, `#[path = "p"]` is relative to the declaring file's
// folder (to the inline module's folder inside `mod a { ... }`), and a file reached by `#[path]`
// or named mod.rs owns its folder. Where the text leaves it open (a macro's input holding a
// `mod`, an unreadable file) every file under that module's folder counts as reached, and every
// file of the package where a macro_rules! body holds one (it may be invoked anywhere): a file is
// never called unreached falsely. Checked on the 236 crates of the machine's cargo registry: what
// it calls unreached is test data (trybuild's tests/ui, build probes) and files truly dead
// (protobuf 3.7.2's src/timestamp.rs, ena 0.14.4's src/bitvec.rs).
// A declaration under a `#[cfg]` off for the target (rust_cfg.ts) reaches its file, and what that
// declares, as inactive: rust-analyzer does not analyse those either. One whose cfg is not known
// here (a feature, a custom cfg) reaches them as uncertain: rust-analyzer can say (its
// parentModule).
import { dirname, join, resolve } from "../src/posix_path.ts";
import { type CfgTarget, evaluateCfg } from "./rust_cfg.ts";

/** A source file to read, and the folder its `mod x;` declarations resolve in. */
interface Module {
  file: string;
  dir: string;
  /** What the `#[cfg]`s it is declared under come to (none: on). */
  cfg?: Cfg;
}

/** A `#[cfg]`'s value: off dominates, then not known here. */
type Cfg = "on" | "maybe" | "off";

function both(a: Cfg = "on", b: Cfg = "on"): Cfg {
  return a === "off" || b === "off" ? "off" : a === "maybe" || b === "maybe" ? "maybe" : "on";
}

/** Most files read to follow `mod` declarations; past them, every file counts as reached. */
const MAX_READ = 5000;

/** The files crates reach; those they reach only through a `#[cfg]` that is off; or not known. */
export interface Reach {
  reached: Set<string>;
  inactive: Set<string>;
  uncertain: Set<string>;
}

/**
 * The files of `files` reached from `roots` (crate roots, absolute) through `mod` declarations;
 * `read` gives a file's text, or undefined where it cannot be read; `target`, where known, the
 * target whose `#[cfg]`s are judged. Undefined: too many to follow.
 */
export async function reachedFiles(
  roots: readonly string[],
  files: readonly string[],
  read: (path: string) => Promise<string | undefined>,
  target?: CfgTarget,
): Promise<Reach | undefined> {
  const listed = new Set(files);
  const reached = new Set<string>();
  const inactive = new Set<string>();
  const uncertain = new Set<string>();
  const sets = { on: reached, maybe: uncertain, off: inactive };
  const unsure: string[] = [];
  const seen = new Set<string>();
  const queue: Module[] = roots.map((file) => ({ file, dir: dirname(file) }));
  while (queue.length > 0) {
    const module = queue.shift()!;
    const key = `${module.file}\u0000${module.dir}\u0000${module.cfg ?? "on"}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > MAX_READ) return undefined;
    const text = await read(module.file);
    // A candidate that is not there (x.rs where x/mod.rs is) reaches nothing; a listed file that
    // cannot be read may declare anything below it.
    if (text === undefined) {
      if (listed.has(module.file)) {
        sets[module.cfg ?? "on"].add(module.file);
        unsure.push(module.dir);
      }
      continue;
    }
    sets[module.cfg ?? "on"].add(module.file);
    const declared = declaredModules(text, module, target);
    unsure.push(...declared.unsure);
    queue.push(...declared.modules);
  }
  for (const file of files) {
    if (unsure.some((dir) => file.startsWith(dir + "/"))) reached.add(file);
  }
  for (const file of reached) {
    inactive.delete(file);
    uncertain.delete(file);
  }
  for (const file of uncertain) inactive.delete(file);
  return { reached, inactive, uncertain };
}

interface Frame {
  /** An inline module's body (or the file's top): its items are followed; else opaque. */
  module: boolean;
  /** What the `#[cfg]`s of the modules around come to. */
  cfg?: Cfg;
  /** Where `mod x;` resolves. */
  dir: string;
  /** Where `#[path]` on a declaration resolves. */
  pathBase: string;
}

interface Attrs {
  path?: string;
  /** What its `#[cfg]`s come to. */
  cfg?: Cfg;
  /** `#[cfg_attr(..., path = "p")]`: p or the default, depending on cfg; both count. */
  maybePaths: string[];
}

/** A file's `mod` declarations as modules to read, and the folders left unsure. */
function declaredModules(
  text: string,
  module: Module,
  target?: CfgTarget,
): { modules: Module[]; unsure: string[] } {
  const tokens = tokenize(text);
  const modules: Module[] = [];
  const unsure: string[] = [];
  const frames: Frame[] = [
    { module: true, dir: module.dir, pathBase: dirname(module.file), cfg: module.cfg },
  ];
  let attrs: Attrs = { maybePaths: [] };
  const doubt = () => {
    if (!unsure.includes(module.dir)) unsure.push(module.dir);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const frame = frames[frames.length - 1];
    if (token.value === "}" && token.kind === "punct") {
      if (frames.length > 1) frames.pop();
      attrs = { maybePaths: [] };
      continue;
    }
    if (!frame.module) {
      if (token.kind === "punct" && token.value === "{") frames.push({ ...frame, module: false });
      // A `mod` in a macro's body or a function's: where it leads is not known here.
      else if (token.kind === "ident" && token.value === "mod") doubt();
      continue;
    }
    if (token.kind === "punct" && token.value === "#") {
      const inner = tokens[i + 1]?.value === "!";
      const open = i + (inner ? 2 : 1);
      if (tokens[open]?.value !== "[") continue;
      const close = matching(tokens, open);
      if (!inner) readAttr(tokens.slice(open + 1, close), attrs, target);
      i = close;
      continue;
    }
    if (token.kind === "ident" && token.value === "mod") {
      const name = tokens[i + 1];
      const after = tokens[i + 2];
      if (name?.kind !== "ident" || (after?.value !== ";" && after?.value !== "{")) {
        doubt();
        continue;
      }
      if (after.value === ";") {
        // A file reached by #[path], or named mod.rs, owns its folder.
        const cfg = both(frame.cfg, attrs.cfg);
        const owned = (file: string) => ({ file, dir: dirname(file), cfg });
        if (attrs.path !== undefined) modules.push(owned(resolve(frame.pathBase, attrs.path)));
        else {
          modules.push(
            { file: join(frame.dir, `${name.value}.rs`), dir: join(frame.dir, name.value), cfg },
            owned(join(frame.dir, name.value, "mod.rs")),
            ...attrs.maybePaths.map((p) => owned(resolve(frame.pathBase, p))),
          );
        }
      } else {
        const dir = attrs.path !== undefined
          ? resolve(frame.dir, attrs.path)
          : join(frame.dir, name.value);
        frames.push({ module: true, dir, pathBase: dir, cfg: both(frame.cfg, attrs.cfg) });
        // cfg_attr's path on an inline module: its declarations may resolve in either folder.
        for (const p of attrs.maybePaths) unsure.push(resolve(frame.dir, p));
      }
      attrs = { maybePaths: [] };
      i += 2;
      continue;
    }
    // include!("x.rs"): its items are this module's.
    if (
      token.kind === "ident" && token.value === "include" && tokens[i + 1]?.value === "!" &&
      tokens[i + 3]?.kind === "str"
    ) {
      const file = resolve(dirname(module.file), tokens[i + 3].value);
      modules.push({ file, dir: frame.dir, cfg: frame.cfg });
      continue;
    }
    // A macro's definition: a `mod` in its body is declared wherever it is invoked, anywhere in
    // the crate (serde_core's crate_root! declares its modules so, invoked in lib.rs).
    const definition = token.kind === "ident" &&
      ((token.value === "macro_rules" && tokens[i + 1]?.value === "!") ||
        (token.value === "macro" && tokens[i + 1]?.kind === "ident"));
    // A macro's invocation: a `mod` in its input (cfg_if! { ... mod unix; ... }) is this module's.
    const invocation = token.kind === "ident" && tokens[i + 1]?.value === "!" &&
      isOpen(tokens[i + 2], OPEN);
    if (definition || invocation) {
      let open = i + 1;
      while (
        open < tokens.length && !isOpen(tokens[open], token.value === "macro" ? BRACE : OPEN)
      ) open++;
      const close = matching(tokens, open);
      if (tokens.slice(open, close).some((t) => t.kind === "ident" && t.value === "mod")) {
        if (definition) unsure.push(ANYWHERE);
        else doubt();
      }
      i = close;
      attrs = { maybePaths: [] };
      continue;
    }
    if (token.kind === "punct" && (token.value === "{" || token.value === ";")) {
      if (token.value === "{") frames.push({ ...frame, module: false });
      attrs = { maybePaths: [] };
    }
  }
  return { modules, unsure };
}

const OPEN = new Set(["{", "(", "["]);
const BRACE = new Set(["{"]);
function isOpen(token: Token | undefined, brackets: Set<string>): boolean {
  return token?.kind === "punct" && brackets.has(token.value);
}

/** In `unsure`: every file (each path starts with it and "/"). */
const ANYWHERE = "";

/** An outer attribute's `path = "p"`, a `cfg`'s value, or a `cfg_attr` that may set a path. */
function readAttr(tokens: Token[], attrs: Attrs, target?: CfgTarget): void {
  const [first, eq, value] = tokens;
  if (
    first?.value === "path" && eq?.value === "=" && value?.kind === "str" && tokens.length === 3
  ) {
    attrs.path = value.value;
    return;
  }
  if (first?.value === "cfg" && eq?.value === "(" && tokens.at(-1)?.value === ")") {
    const value = target ? evaluateCfg(tokens.slice(2, -1), target) : undefined;
    attrs.cfg = both(attrs.cfg, value === undefined ? "maybe" : value ? "on" : "off");
    return;
  }
  if (first?.value !== "cfg_attr") return;
  tokens.forEach((token, i) => {
    if (
      token.kind === "ident" && token.value === "path" && tokens[i + 1]?.value === "=" &&
      tokens[i + 2]?.kind === "str"
    ) {
      attrs.maybePaths.push(tokens[i + 2].value);
    }
  });
}

/** The index of the bracket closing the one at `open` (or the last token). */
function matching(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const value = tokens[i].kind === "punct" ? tokens[i].value : "";
    if (value === "[" || value === "(" || value === "{") depth++;
    else if (value === "]" || value === ")" || value === "}") {
      if (--depth === 0) return i;
    }
  }
  return tokens.length - 1;
}

/** A token of Rust's lexical grammar, as far as `mod` items need: comments are dropped. */
export interface Token {
  kind: "ident" | "str" | "punct" | "other";
  /** An identifier without `r#`; a string's contents (escapes kept); the punctuation. */
  value: string;
}

const IDENT = /(?:r#)?([\p{XID_Start}_][\p{XID_Continue}]*)/uy;
const RAW_STRING = /(?:b|c)?r(#*)"/y;
const CHAR = /'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/uy;
const LIFETIME = /'[\p{XID_Start}_][\p{XID_Continue}]*/uy;
const NUMBER = /[0-9][\w.]*/y;

/** The tokens of `text`: comments skipped, strings and chars as one token each. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(text);
  };
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
    } else if (text.startsWith("/*", i)) {
      // Block comments nest.
      let depth = 0;
      while (i < text.length) {
        if (text.startsWith("/*", i)) [depth, i] = [depth + 1, i + 2];
        else if (text.startsWith("*/", i)) {
          [depth, i] = [depth - 1, i + 2];
          if (depth === 0) break;
        } else i++;
      }
    } else if (at(RAW_STRING)) {
      const match = at(RAW_STRING)!;
      const close = `"${match[1]}`;
      const start = i + match[0].length;
      const end = text.indexOf(close, start);
      tokens.push({ kind: "str", value: text.slice(start, end === -1 ? undefined : end) });
      i = end === -1 ? text.length : end + close.length;
    } else if (c === '"' || (/[bc]/.test(c) && text[i + 1] === '"')) {
      let j = c === '"' ? i + 1 : i + 2;
      const start = j;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "str", value: text.slice(start, j) });
      i = j + 1;
    } else if (c === "b" && text[i + 1] === "'") {
      i++;
      i += at(CHAR)?.[0].length ?? 1;
      tokens.push({ kind: "other", value: "char" });
    } else if (c === "'") {
      const char = at(CHAR) ?? at(LIFETIME);
      i += char?.[0].length ?? 1;
      tokens.push({ kind: "other", value: "'" });
    } else if (at(IDENT)) {
      const match = at(IDENT)!;
      tokens.push({ kind: "ident", value: match[1] });
      i += match[0].length;
    } else if (at(NUMBER)) {
      i += at(NUMBER)![0].length;
      tokens.push({ kind: "other", value: "0" });
    } else {
      tokens.push({ kind: "punct", value: c });
      i++;
    }
  }
  return tokens;
}
