// What the benchmark asks, per server and workspace: the fixtures, and one real package's sources
// fetched from its registry with its ordinary client into .lspgate/bench/cache (never committed).
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** A place in a file, found by text: the first line holding `line`, at `symbol` on it. */
export interface Spot {
  file: string;
  line: string;
  symbol: string;
}

/** One server on one workspace, and the queries both clients send it. */
export interface Scenario {
  /** Short name for tables, e.g. "typescript/rxjs". */
  name: string;
  /** lspgate's adapter id. */
  server: string;
  languageId: string;
  /** A real package's sources (true) or a small fixture. */
  real: boolean;
  /** Describes the workspace in the report. */
  source: string;
  /** The folder to copy: resolved (fetched if needed) at run time; undefined = skip. */
  folder(): Promise<string | undefined>;
  /** Extra files written into the copy (a tsconfig, compile flags). */
  extraFiles?: Record<string, string>;
  /** Files of this language, for the 64-file diagnostics (relative to the root). */
  extension: string;
  definition: Spot & { expect: { file: string; line: string } };
  references: Spot;
  hover: Spot;
  outline: string;
  workspaceQuery: string;
  /** The file edited for diagnostics, and the line that makes an error there (n: sample). */
  edit: { file: string; errorLine(n: number): string };
}

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
/** Where fetched packages are kept between runs. */
export const CACHE = fileURLToPath(new URL("../../.lspgate/bench/cache/", import.meta.url));

const tsError = (n: number) => `export const lspgateBench${n}: number = "${n}";`;
const pyError = (n: number) => `lspgate_bench_${n}: int = "${n}"`;
const cError = (n: number) => `int lspgate_bench_${n} = lspgate_undeclared_${n};`;
const goError = (n: number) => `var lspgateBench${n} int = "${n}"`;

/** Every scenario the full run knows, fixtures first. */
export const SCENARIOS: Scenario[] = [
  {
    name: "typescript/fixture",
    server: "typescript",
    languageId: "typescript",
    real: false,
    source: "tests/fixtures/typescript (4 files)",
    folder: () => Promise.resolve(join(FIXTURES, "typescript")),
    extension: ".ts",
    definition: {
      file: "src/index.ts",
      line: "formatPrice(basket.price())",
      symbol: "formatPrice",
      expect: { file: "src/format.ts", line: "export function formatPrice" },
    },
    references: {
      file: "src/format.ts",
      line: "export function formatPrice",
      symbol: "formatPrice",
    },
    hover: { file: "src/index.ts", line: "summary([apple, pear])", symbol: "summary" },
    outline: "src/models.ts",
    workspaceQuery: "Product",
    edit: { file: "src/cart.ts", errorLine: tsError },
  },
  {
    name: "typescript/rxjs",
    server: "typescript",
    languageId: "typescript",
    real: true,
    source: "rxjs 7.8.2 src/ from npm (251 .ts files)",
    folder: () =>
      fetchOnce("rxjs-7.8.2", async (dir) => {
        await run(["npm", "pack", "rxjs@7.8.2", "--pack-destination", dir, "--silent"]);
        await run(["tar", "xzf", join(dir, "rxjs-7.8.2.tgz"), "-C", dir]);
        await Deno.rename(join(dir, "package", "src"), join(dir, "tree", "src"));
      }),
    extraFiles: {
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "es2017",
          module: "esnext",
          moduleResolution: "node",
          lib: ["es2018", "dom"],
          noEmit: true,
        },
        include: ["src"],
      }),
    },
    extension: ".ts",
    definition: {
      file: "src/internal/operators/map.ts",
      line: "createOperatorSubscriber(subscriber",
      symbol: "createOperatorSubscriber",
      expect: {
        file: "src/internal/operators/OperatorSubscriber.ts",
        line: "export function createOperatorSubscriber",
      },
    },
    references: {
      file: "src/internal/operators/OperatorSubscriber.ts",
      line: "export function createOperatorSubscriber",
      symbol: "createOperatorSubscriber",
    },
    hover: { file: "src/internal/operators/map.ts", line: "return operate(", symbol: "operate" },
    outline: "src/internal/Observable.ts",
    workspaceQuery: "Subscriber",
    edit: { file: "src/internal/operators/map.ts", errorLine: tsError },
  },
  {
    name: "pyright/fixture",
    server: "pyright",
    languageId: "python",
    real: false,
    source: "tests/fixtures/python (5 files)",
    folder: () => Promise.resolve(join(FIXTURES, "python")),
    extension: ".py",
    definition: {
      file: "main.py",
      line: "rex = Dog(",
      symbol: "Dog",
      expect: { file: "zoo/animals.py", line: "class Dog(" },
    },
    references: { file: "zoo/greeting.py", line: "def greet(name", symbol: "greet" },
    hover: { file: "main.py", line: "print(report(", symbol: "report" },
    outline: "zoo/animals.py",
    workspaceQuery: "Animal",
    edit: { file: "zoo/report.py", errorLine: pyError },
  },
  {
    name: "pyright/pygments",
    server: "pyright",
    languageId: "python",
    real: true,
    source: "pygments 2.18.0 sdist from PyPI, the package only (345 .py files)",
    folder: () =>
      fetchOnce("pygments-2.18.0", async (dir) => {
        await run([
          "pip",
          "download",
          "--quiet",
          "--no-deps",
          "--no-binary",
          ":all:",
          "pygments==2.18.0",
          "-d",
          dir,
        ]);
        await run(["tar", "xzf", join(dir, "pygments-2.18.0.tar.gz"), "-C", dir]);
        const unpacked = join(dir, "pygments-2.18.0");
        await Deno.rename(join(unpacked, "pygments"), join(dir, "tree", "pygments"));
        await Deno.rename(join(unpacked, "pyproject.toml"), join(dir, "tree", "pyproject.toml"));
      }),
    extension: ".py",
    definition: {
      file: "pygments/lexers/python.py",
      line: "class PythonLexer(RegexLexer)",
      symbol: "RegexLexer",
      expect: { file: "pygments/lexer.py", line: "class RegexLexer(" },
    },
    references: { file: "pygments/util.py", line: "def get_bool_opt(", symbol: "get_bool_opt" },
    hover: {
      file: "pygments/lexers/python.py",
      line: "bygroups(Keyword, Text)",
      symbol: "bygroups",
    },
    outline: "pygments/lexer.py",
    workspaceQuery: "PythonLexer",
    edit: { file: "pygments/lexers/python.py", errorLine: pyError },
  },
  {
    name: "clangd/fixture",
    server: "clangd",
    languageId: "c",
    real: false,
    source: "tests/fixtures/c (3 files)",
    folder: () => Promise.resolve(join(FIXTURES, "c")),
    extension: ".c",
    definition: {
      file: "src/main.c",
      line: "int total = add_counts(",
      symbol: "add_counts",
      expect: { file: "src/counts.c", line: "int add_counts(" },
    },
    references: { file: "src/counts.c", line: "int add_counts(", symbol: "add_counts" },
    hover: { file: "src/main.c", line: "point_sum(origin)", symbol: "point_sum" },
    outline: "src/counts.c",
    workspaceQuery: "point",
    edit: { file: "src/counts.c", errorLine: cError },
  },
  {
    name: "gopls/fixture",
    server: "gopls",
    languageId: "go",
    real: false,
    source: "tests/fixtures/go (3 files)",
    folder: () => Promise.resolve(join(FIXTURES, "go")),
    extension: ".go",
    definition: {
      file: "main.go",
      line: "message := greet.Greet(",
      symbol: "Greet",
      expect: { file: "greet/greet.go", line: "func Greet(" },
    },
    references: { file: "greet/greet.go", line: "func Greet(", symbol: "Greet" },
    hover: { file: "main.go", line: "greet.Dog{Name", symbol: "Speak" },
    outline: "greet/greet.go",
    workspaceQuery: "Speak",
    edit: { file: "greet/greet.go", errorLine: goError },
  },
  {
    name: "clangd/brotli",
    server: "clangd",
    languageId: "c",
    real: true,
    source: "brotli 1.1.0's C library from its PyPI sdist (93 .c/.h files)",
    folder: () =>
      fetchOnce("brotli-1.1.0", async (dir) => {
        await run([
          "pip",
          "download",
          "--quiet",
          "--no-deps",
          "--no-binary",
          ":all:",
          "brotli==1.1.0",
          "-d",
          dir,
        ]);
        await run(["tar", "xzf", join(dir, "Brotli-1.1.0.tar.gz"), "-C", dir]);
        await Deno.rename(join(dir, "Brotli-1.1.0", "c"), join(dir, "tree", "c"));
      }),
    extraFiles: { "compile_flags.txt": "-std=c99\n-Ic/include\n" },
    extension: ".c",
    definition: {
      file: "c/enc/encode.c",
      line: "BrotliInitMemoryManager(",
      symbol: "BrotliInitMemoryManager",
      expect: { file: "c/enc/memory.c", line: "void BrotliInitMemoryManager(" },
    },
    references: {
      file: "c/enc/memory.c",
      line: "void BrotliInitMemoryManager(",
      symbol: "BrotliInitMemoryManager",
    },
    hover: {
      file: "c/enc/encode.c",
      line: "BrotliCreateBackwardReferences(bytes",
      symbol: "BrotliCreateBackwardReferences",
    },
    outline: "c/enc/encode.c",
    workspaceQuery: "BrotliEncoder",
    edit: { file: "c/enc/memory.c", errorLine: cError },
  },
];

/**
 * A fetched package's tree in the cache, fetched by `fetch` (which fills `dir/tree`) the first
 * time; undefined, with the reason printed, when it cannot be fetched.
 */
async function fetchOnce(
  name: string,
  fetch: (dir: string) => Promise<void>,
): Promise<string | undefined> {
  const dir = join(CACHE, name);
  const tree = join(dir, "tree");
  try {
    await Deno.stat(join(dir, "complete"));
    return tree;
  } catch {
    // Not fetched yet.
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(tree, { recursive: true });
  try {
    await fetch(dir);
    await Deno.writeTextFile(join(dir, "complete"), new Date().toISOString());
    return tree;
  } catch (error) {
    console.log(
      `  (skipped: could not fetch ${name}: ${error instanceof Error ? error.message : error})`,
    );
    return undefined;
  }
}

async function run(argv: string[]): Promise<void> {
  const output = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`${argv.join(" ")} failed: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
}

/** The files of `root` ending in `extension`, in name order, dot folders left out. */
export async function sourceFiles(root: string, extension: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    const entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory && !entry.name.startsWith(".")) await walk(rel);
      else if (entry.isFile && entry.name.endsWith(extension)) found.push(rel);
    }
  };
  await walk("");
  return found;
}
