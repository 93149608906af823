import { dirname, extname, join } from "../src/posix_path.ts";
import type { Adapter } from "../src/servers/adapter.ts";
import { findBinary, realPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";
import { compareText } from "../src/compare.ts";

const C_FAMILY = {
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".c++": "cpp",
  ".hh": "cpp",
  ".hpp": "cpp",
  ".hxx": "cpp",
  ".h++": "cpp",
  ".inl": "cpp",
  ".ipp": "cpp",
  ".m": "objective-c",
  ".mm": "objective-cpp",
};

/** Files compiled on their own (headers are indexed through the sources that include them). */
export const SOURCES = new Set([".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm"]);
/** Sources listed for the background index of a project without a compile_commands.json. */
export const MAX_SOURCES = 2000;
/** compile_flags.txt larger than this is not read. */
const MAX_FLAGS_BYTES = 64 * 1024;
/** Folders looked into at most, so a huge tree cannot stall a start. */
const MAX_FOLDERS = 20_000;
/** Folders never walked for sources: build output, dependencies, VCS and caches. */
export const SKIPPED = new Set(["node_modules", "build", "out", "target", "third_party", "vendor"]);

const installHint = "Install clangd: `apt-get install clangd` (Debian/Ubuntu), `brew install " +
  "llvm` (macOS), or a release from clangd.llvm.org. A compile_commands.json (CMake: " +
  "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) or compile_flags.txt at the project root tells it the flags.";

/**
 * clangd for C, C++ and Objective-C, with its background index. With a compile_commands.json
 * clangd indexes what it lists; without one (compile_flags.txt, or nothing), clangd would index
 * only the files opened, so lspgate hands it a compile command for every source file under the
 * root (`compilationDatabaseChanges`, with compile_flags.txt's flags) and the index covers them.
 * Readiness waits for that index: before it, clangd answers a cross-file definition with the
 * header's declaration and references from the open file alone.
 */
export const clangdAdapter: Adapter = {
  id: "clangd",
  languages: C_FAMILY,
  rootMarkers: [
    "compile_commands.json",
    "compile_flags.txt",
    ".clangd",
    ".clang-tidy",
    ".clang-format",
    "CMakeLists.txt",
    "meson.build",
    "configure.ac",
    "Makefile",
  ],
  priority: 10,
  installHint,
  readiness: "progress",
  indexProgressToken: "backgroundIndexProgress",
  // clangd publishes nothing for a didChange with identical text: after another file changed, a
  // document is checked again by closing and opening it (which clangd always answers).
  recheckByReopen: true,
  // A translation unit's diagnostics change with the headers it includes and its compile flags,
  // never with another source file: an edit to a .c file leaves the others' last answer current
  // (and clangd's reparse of each, on a reopen, is what an edit of many files would otherwise cost).
  crossFilePattern: "\\.(h|hh|hpp|hxx|h\\+\\+|inc|inl|ipp|tpp|tcc|def|modulemap|cppm|ixx)$|" +
    "/(compile_commands\\.json|compile_flags\\.txt|\\.clangd)$",
  // clangd before 16 negotiates encodings only through this extension of its own.
  extraCapabilities: { offsetEncoding: ["utf-32", "utf-8", "utf-16"] },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    let command = configuredCommand;
    let installDir: string | undefined;
    if (!command) {
      const found = await findBinary("clangd", { root, workspace, trusted });
      if (!found) {
        throw new LspGateError(
          "SERVER_NOT_INSTALLED",
          `clangd was not found on PATH or in lspgate's tools folder. ${installHint}`,
          { server: "clangd" },
        );
      }
      // Its index persists under the project's .cache/clangd, which a read-only sandbox refuses:
      // the index is then kept in memory only. No --query-driver: a compile_commands.json names
      // compilers, and clangd runs none of them unless allowed here.
      command = [found, "--background-index", "--log=error"];
      // <prefix>/bin/clangd: its resource headers are in <prefix>/lib/clang.
      installDir = dirname(dirname(await realPath(found)));
    }
    const database = compileCommandsFolder(root);
    if (database) {
      return { command, installDir, note: `compile_commands.json in ${database}` };
    }
    const sources = await sourcesUnder(root);
    // Read only where the root's listing shows one: a missing file's lstat is a thrown error.
    const flags = sources.flagsFile ? await compileFlags(root) : [];
    const entry = (file: string, extra: string[] = []) => [
      file,
      { workingDirectory: root, compilationCommand: ["clang", ...flags, ...extra, file] },
    ];
    // Sources first: the coverage hook takes the first command's flags for sources made later.
    // In a C project a header gets C's command too: without one clangd reads a `.h` as C++, and
    // a question asked from it named C++ symbols, matching none of the C sources' (references
    // from a.h missed b.c's call, and spoiled the next answers).
    // (With no source at all, a header-only library: C++ as often as not, so clangd's default.)
    const cOnly = sources.files.length > 0 &&
      sources.files.every((file) => extname(file).toLowerCase() === ".c");
    const compilationDatabaseChanges = Object.fromEntries([
      ...sources.files.map((file) => entry(file)),
      ...(cOnly ? sources.headers.map((file) => entry(file, ["-x", "c-header"])) : []),
    ]);
    return {
      command,
      installDir,
      initializationOptions: { compilationDatabaseChanges },
      note: `no compile_commands.json: ${sources.files.length} source files indexed with ` +
        (flags.length ? "compile_flags.txt's flags" : "default flags") +
        (sources.capped ? ` (the first ${MAX_SOURCES} only)` : ""),
    };
  },
};

/** The folder holding the project's compile_commands.json (the root or its build/), if any. */
function compileCommandsFolder(root: string): string | undefined {
  for (const folder of [root, join(root, "build")]) {
    // Only one inside the root: a `build` linked outside would have status say whether a file
    // exists there (a helper's find), and clangd read commands the repository does not hold.
    try {
      // In the thread: a realpath and a stat open nothing.
      const real = Deno.realPathSync(join(folder, "compile_commands.json"));
      if (real.startsWith(root + "/") && Deno.statSync(real).isFile) return folder;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/** compile_flags.txt's flags, one per line, as clangd reads them. */
async function compileFlags(root: string): Promise<string[]> {
  const path = join(root, "compile_flags.txt");
  try {
    // Only a regular file of reasonable size: a repository's FIFO or symlink is not read.
    // In the thread (a stat opens nothing); the read stays off it.
    const info = Deno.lstatSync(path);
    if (!info.isFile || info.size > MAX_FLAGS_BYTES) return [];
    const text = await Deno.readTextFile(path);
    return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  } catch {
    return [];
  }
}

/**
 * The C-family source files under `root`, at most MAX_SOURCES, the `.h` headers, and whether the root
 * holds a compile_flags.txt (a regular file). Symlinks are not followed (a
 * repository cannot point the walk outside itself); hidden and build folders are skipped.
 */
async function sourcesUnder(
  root: string,
): Promise<{ files: string[]; headers: string[]; capped: boolean; flagsFile: boolean }> {
  const files: string[] = [];
  const headers: string[] = [];
  const pending = [root];
  let flagsFile = false;
  for (let seen = 0; pending.length > 0; seen++) {
    if (seen === MAX_FOLDERS) return { files, headers, capped: true, flagsFile };
    const dir = pending.shift()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      continue;
    }
    entries.sort((a, b) => compareText(a.name, b.name));
    if (dir === root) flagsFile = entries.some((e) => e.name === "compile_flags.txt" && e.isFile);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (!entry.name.startsWith(".") && !SKIPPED.has(entry.name)) pending.push(path);
      } else if (entry.isFile && SOURCES.has(extname(entry.name).toLowerCase())) {
        if (files.length === MAX_SOURCES) return { files, headers, capped: true, flagsFile };
        files.push(path);
      } else if (entry.isFile && entry.name.endsWith(".h") && headers.length < MAX_SOURCES) {
        headers.push(path);
      }
    }
  }
  return { files, headers, capped: false, flagsFile };
}
