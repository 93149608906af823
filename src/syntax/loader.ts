import type { Language, Parser, Query, Tree } from "web-tree-sitter";
import type { SyntaxLanguage } from "./languages.ts";
import type { SyntaxStage } from "./types.ts";

/** The syntax parsers cannot run here (e.g. in the `deno bundle` artifact, which lacks them). */
export class SyntaxUnavailable extends Error {
  /** Wraps the reason the parser runtime or a grammar did not load. */
  constructor(message: string) {
    super(message);
    this.name = "SyntaxUnavailable";
  }
}

/** A parse or a walk of its tree ran past its deadline; `stage` says which part. */
export class SyntaxTimeout extends Error {
  /** `stage`: the part that ran out of time. */
  constructor(readonly stage: SyntaxStage) {
    super(`the ${stage} ran past its deadline`);
    this.name = "SyntaxTimeout";
  }
}

/** How long the runtime and each grammar took to load, in ms (for the benchmark). */
export const loadTimes: { runtime?: number; grammars: Partial<Record<SyntaxLanguage, number>> } = {
  grammars: {},
};

type Runtime = typeof import("web-tree-sitter");

let runtime: Promise<Runtime> | undefined;
let memory: WebAssembly.Memory | undefined;

/** A parse with no deadline given gives up after this long. */
const DEFAULT_BUDGET_MS = 3_000;
const languages = new Map<SyntaxLanguage, Promise<Language>>();
const parsers = new Map<SyntaxLanguage, Parser>();
const queries = new Map<string, Promise<Query>>();

/** The most WebAssembly memory the parsers may grow to; past it an allocation fails. */
export const MAX_WASM_BYTES = 512 * 1024 * 1024;

/**
 * The npm package file of each WebAssembly module: the runtime's own (`core`) and each grammar's.
 * The versions are those of deno.json's imports (a test holds them equal), so `deno install`
 * caches them ahead.
 */
export const WASM_FILES: Readonly<Record<SyntaxLanguage | "core", string>> = {
  core: "npm:web-tree-sitter@0.27.1/web-tree-sitter.wasm",
  typescript: "npm:tree-sitter-typescript@0.23.2/tree-sitter-typescript.wasm",
  tsx: "npm:tree-sitter-typescript@0.23.2/tree-sitter-tsx.wasm",
  javascript: "npm:tree-sitter-javascript@0.25.0/tree-sitter-javascript.wasm",
  python: "npm:tree-sitter-python@0.25.0/tree-sitter-python.wasm",
  go: "npm:tree-sitter-go@0.25.0/tree-sitter-go.wasm",
  rust: "npm:tree-sitter-rust@0.24.0/tree-sitter-rust.wasm",
  c: "npm:tree-sitter-c@0.24.1/tree-sitter-c.wasm",
  cpp: "npm:tree-sitter-cpp@0.23.4/tree-sitter-cpp.wasm",
  java: "npm:tree-sitter-java@0.23.5/tree-sitter-java.wasm",
  ruby: "npm:tree-sitter-ruby@0.23.1/tree-sitter-ruby.wasm",
  bash: "npm:tree-sitter-bash@0.25.1/tree-sitter-bash.wasm",
  json: "npm:tree-sitter-json@0.24.8/tree-sitter-json.wasm",
  yaml: "npm:@tree-sitter-grammars/tree-sitter-yaml@0.7.1/tree-sitter-yaml.wasm",
};

/**
 * A WebAssembly module from its npm package, by `import source` in a module written on the fly:
 * Deno compiles the `.wasm` from its npm cache (fetching the package the first time), so no
 * file is read and no permission is needed. Written as a data: URL, not a file, because
 * `deno bundle` cannot parse `import source`: the bundle leaves this import alone, and still
 * has the parsers when it runs.
 */
async function wasmModule(name: SyntaxLanguage | "core"): Promise<WebAssembly.Module> {
  const shipped = await shippedModule(name);
  if (shipped) return shipped;
  const source = `import source wasm from ${
    JSON.stringify(WASM_FILES[name])
  }; export default wasm;`;
  try {
    const loaded = await import(`data:text/javascript,${encodeURIComponent(source)}`);
    return loaded.default as WebAssembly.Module;
  } catch (error) {
    throw new SyntaxUnavailable(
      `the ${name} grammar could not be loaded: ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** The file name a parser is shipped under beside the bundle (see ship_parsers.ts). */
export function shippedName(name: SyntaxLanguage | "core"): string {
  return `${name}.wasm`;
}

/**
 * A parser shipped beside the `deno bundle` artifact (`dist/parsers/<name>.wasm`, copied there by
 * `deno task bundle`), so the bundle carries its parsers and asks no registry at first use;
 * undefined where there is none (lspgate run from its sources) or it may not be read.
 */
async function shippedModule(
  name: SyntaxLanguage | "core",
): Promise<WebAssembly.Module | undefined> {
  if (!import.meta.url.startsWith("file:")) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(new URL(`./parsers/${shippedName(name)}`, import.meta.url));
  } catch {
    return undefined;
  }
  try {
    return await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  } catch (error) {
    throw new SyntaxUnavailable(
      `the shipped ${name} parser could not be compiled: ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
}

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const started = performance.now();
    const treeSitter = await import("web-tree-sitter");
    const core = await wasmModule("core");
    await treeSitter.Parser.init({
      // Linear memory never shrinks, and a pathological file grows it by hundreds of MiB: capped,
      // a runaway parse fails an allocation instead of taking the machine's memory.
      wasmMemory: memory = new WebAssembly.Memory({
        initial: 512,
        maximum: MAX_WASM_BYTES / 65536,
      }),
      // The runtime's own module, instantiated from the compiled module instead of a file read.
      instantiateWasm(
        imports: WebAssembly.Imports,
        done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
      ) {
        WebAssembly.instantiate(core, imports).then((instance) => done(instance, core));
        return {};
      },
    } as Record<string, unknown>);
    loadTimes.runtime = performance.now() - started;
    return treeSitter;
  })();
  return runtime;
}

/** The grammar of `language`, loaded on first use and kept. */
export function grammar(language: SyntaxLanguage): Promise<Language> {
  let loading = languages.get(language);
  if (!loading) {
    loading = (async () => {
      const treeSitter = await loadRuntime();
      const started = performance.now();
      const loaded = treeSitter.Language.loadSync(await wasmModule(language));
      loadTimes.grammars[language] = performance.now() - started;
      return loaded;
    })();
    languages.set(language, loading);
  }
  return loading;
}

/** Bytes of WebAssembly memory the parsers hold now (0 before the runtime loads). */
export function wasmBytes(): number {
  return memory?.buffer.byteLength ?? 0;
}

/**
 * Parses `text` as `language`. The caller owns the tree and must `delete()` it. Undefined when
 * the parse ran past `deadline` (a `performance.now()` time; default: a 3 s budget).
 */
export async function parse(
  language: SyntaxLanguage,
  text: string,
  deadline = performance.now() + DEFAULT_BUDGET_MS,
): Promise<Tree | undefined> {
  const loaded = await grammar(language);
  let parser = parsers.get(language);
  if (!parser) {
    const { Parser } = await loadRuntime();
    parser = new Parser();
    parser.setLanguage(loaded);
    parsers.set(language, parser);
  }
  const tree = parser.parse(text, null, {
    // Returning true cancels the parse (the typings say void; the docs and the code say so).
    progressCallback: (() => performance.now() > deadline) as () => void,
  });
  if (!tree) parser.reset();
  return tree ?? undefined;
}

/** A query over `language`'s trees, compiled on first use and kept. */
export function compileQuery(language: SyntaxLanguage, source: string): Promise<Query> {
  const key = `${language}\u0000${source}`;
  let compiled = queries.get(key);
  if (!compiled) {
    compiled = (async () => {
      const { Query } = await loadRuntime();
      return new Query(await grammar(language), source);
    })();
    queries.set(key, compiled);
  }
  return compiled;
}
