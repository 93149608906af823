// clangd answers references, renames, callers and workspace symbols from its index: the files its
// compilation database lists, the headers they include, and the files open. A
// compile_commands.json that leaves a source out (b.c, built by another target or not at all)
// leaves its uses out of every answer, silently (issue 17: references missed b.c's call and said
// `partial: false`). The database is the project's own, so it is kept; the answer says what it
// leaves out. Without one, the adapter hands clangd a command for every source at start
// (adapters/clangd.ts); a source created since is handed over here, before the question.
import { dirname, join, resolve } from "../src/posix_path.ts";
import { MAX_SOURCES, SKIPPED, SOURCES } from "./clangd.ts";
import type { CoverageAnswer, CoverageContext, CoverageHook } from "./coverage.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";

/** Where the adapter looks for the database, in its order (clangd's: the root, then build/). */
const DATABASES = ["compile_commands.json", "build/compile_commands.json"];
/** Most folders of a database's entries outside the root looked up by real path. */
const MAX_REAL_PATHS = 200;
/** How long clangd may take to start indexing handed-over files, and to index them. */
const INDEX_START_MS = 2_000;
const INDEX_TIMEOUT_MS = 60_000;

/** Per database text, the real paths it lists: read again only when the file changes. */
const listed = new WeakMap<object, { text: string; files: Promise<Set<string>> }>();
/** Per server without a database, the sources it has a command for (at start, then handed). */
const handed = new WeakMap<object, HandOver>();

interface HandOver {
  known: Set<string>;
  flags: string[];
  /** The last hand-over's wait for the index: true once indexed. */
  last?: Promise<boolean>;
}

/** See the file comment. */
export const clangdCoverage: CoverageHook = async (context) => {
  const overlay = startCommands(context.client.options.initializationOptions);
  return overlay ? await handOver(context, overlay) : await withDatabase(context);
};

/** The sources of the project clangd is meant to index: not in build output or dependencies. */
async function projectSources(context: CoverageContext): Promise<string[]> {
  return (await context.files()).filter((file) => {
    if (!file.startsWith(context.root + "/")) return false;
    const parts = file.slice(context.root.length + 1).split("/");
    const name = parts.pop()!;
    const dot = name.lastIndexOf(".");
    return dot > 0 && SOURCES.has(name.slice(dot).toLowerCase()) &&
      !parts.some((part) => part.startsWith(".") || SKIPPED.has(part));
  });
}

async function withDatabase(context: CoverageContext): Promise<CoverageAnswer> {
  for (const name of DATABASES) {
    const path = join(context.root, name);
    const text = await context.readText(path);
    if (text === undefined) continue;
    let entry = listed.get(context.client);
    if (!entry || entry.text !== text) {
      entry = { text, files: databaseFiles(dirname(path), text) };
      listed.set(context.client, entry);
    }
    const files = await entry.files;
    const unlisted = (await projectSources(context)).filter((file) => !files.has(file));
    // Asked about a name, only the files that hold it can hold uses of it.
    const left = await holdingName(context, unlisted);
    if (left.length === 0) return { partial: false };
    return {
      partial: true,
      reason: `${name} leaves ${namedFiles(context, left)} out: clangd did not index ` +
        (left.length === 1 ? "it" : "them"),
    };
  }
  return {
    partial: true,
    reason: "compile_commands.json could not be read: which files clangd indexed is not known",
  };
}

/** The real paths of the files a compile_commands.json lists (`directory` + `file`). */
async function databaseFiles(folder: string, text: string): Promise<Set<string>> {
  const files = new Set<string>();
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    return files;
  }
  if (!Array.isArray(entries)) return files;
  const real = new Map<string, Promise<string | undefined>>();
  for (const entry of entries) {
    const { directory, file } = (entry ?? {}) as { directory?: unknown; file?: unknown };
    if (typeof file !== "string") continue;
    const path = resolve(folder, typeof directory === "string" ? directory : ".", file);
    files.add(path);
    // A database written through a symlinked path (/tmp → /private/tmp) names the same files.
    const dir = dirname(path);
    if (!real.has(dir) && real.size < MAX_REAL_PATHS) {
      real.set(dir, Deno.realPath(dir).catch(() => undefined));
    }
    const realDir = await real.get(dir);
    if (realDir && realDir !== dir) files.add(join(realDir, path.slice(dir.length + 1)));
  }
  return files;
}

/** The compile commands the adapter handed clangd at start, where it found no database. */
function startCommands(
  options: unknown,
): Record<string, { compilationCommand?: unknown }> | undefined {
  const changes = (options as { compilationDatabaseChanges?: unknown } | undefined)
    ?.compilationDatabaseChanges;
  return typeof changes === "object" && changes !== null
    ? changes as Record<string, { compilationCommand?: unknown }>
    : undefined;
}

/**
 * No database: sources created since clangd started have no command, so clangd would index them
 * only while open. They are handed over as at start, and the question waits for their index.
 */
async function handOver(
  context: CoverageContext,
  overlay: Record<string, { compilationCommand?: unknown }>,
): Promise<CoverageAnswer> {
  let state = handed.get(context.client);
  if (!state) {
    const first = Object.values(overlay)[0]?.compilationCommand;
    // ["clang", ...compile_flags.txt's flags, file]
    const flags = Array.isArray(first) ? first.slice(1, -1).map(String) : [];
    state = { known: new Set(Object.keys(overlay)), flags };
    handed.set(context.client, state);
  }
  const sources = await projectSources(context);
  const fresh = sources.filter((file) => !state.known.has(file));
  const room = Math.max(0, MAX_SOURCES - state.known.size);
  const now = fresh.slice(0, room);
  if (now.length > 0) {
    for (const file of now) state.known.add(file);
    const changes = Object.fromEntries(now.map((file) => [file, {
      workingDirectory: context.root,
      compilationCommand: ["clang", ...state.flags, file],
    }]));
    state.last = context.client.notify("workspace/didChangeConfiguration", {
      settings: { compilationDatabaseChanges: changes },
    }).then(() => indexed(context, INDEX_START_MS), () => false);
  }
  // Others asking meanwhile wait for the same index; after a wait that gave up, the next question
  // waits again for the index it left running.
  let done = await (state.last ?? true);
  if (!done && now.length === 0) {
    const again: Promise<boolean> = state.last = indexed(context, 0);
    done = await again;
  }
  if (!done) {
    return {
      partial: true,
      reason: "clangd was still indexing the source files created since it started",
    };
  }
  const left = await holdingName(context, fresh.slice(now.length));
  if (left.length === 0) return { partial: false };
  return {
    partial: true,
    reason: `clangd was given the first ${MAX_SOURCES} of ${sources.length} source files ` +
      `(${namedFiles(context, left)} left out)`,
  };
}

/** Whether clangd's index took the files in: its progress began (within `startMs`) and ended. */
async function indexed(context: CoverageContext, startMs: number): Promise<boolean> {
  const busy = () => context.client.activeProgress.length > 0;
  const until = async (done: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!done()) {
      if (context.client.exited || Date.now() > end) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  };
  await until(busy, startMs);
  return await until(() => !busy(), INDEX_TIMEOUT_MS);
}
