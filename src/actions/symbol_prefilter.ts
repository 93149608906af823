// Which servers a workspace symbol search can leave unstarted: a server whose adapter says what it
// indexes (Adapter.symbolIndex) cannot answer a query whose characters, in order and case aside,
// lie in no word of those files. Issue 17: on jansson (C) a search for `json_loads` started
// bash-language-server and pyright for its scripts and doc/conf.py, 1–4 s, for no possible match.
//
// Rationale, why it is sound: lspgate passes each server's answer on unfiltered, so what matches is
// the server's rule. Both servers that declare an index match a name only when the name holds the
// query's characters in order (pyright case aside, bash-language-server case kept), and every name
// they answer is spelled, within one word, in a file of that index. A name holding them is inside a
// word holding them, so a word test that fails for every file proves the answer empty.
import { join } from "../posix_path.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/skipped_folders.ts";
import type { Adapter, SymbolIndex } from "../servers/adapter.ts";
import type { ServerManager } from "../servers/manager.ts";
import type { ActionContext } from "./types.ts";

/** Most bytes of one server's files read to decide; past it, the server is asked. */
export const MAX_INDEX_BYTES = 4 * 1024 * 1024;
/** Most files one server's index may have for the test to be made. */
const MAX_INDEX_FILES = 2_000;
/** Most files whose words are kept across searches. */
const MAX_KEPT_FILES = 4_096;

/**
 * Whether `adapter`'s server at `root`, not running, can be left out of a workspace symbol search
 * for `query`: its index (the files it would read on start) holds no word with the query's
 * characters in order. False whenever that cannot be known cheaply: no index declared, an empty or
 * non-ASCII query, a project config at the root, more than MAX_INDEX_BYTES or a walk cut short.
 */
export async function cannotMatch(
  context: ActionContext,
  adapter: Adapter,
  root: string,
  query: string,
): Promise<boolean> {
  const index = adapter.symbolIndex;
  // Outside ASCII, case folding can change lengths: only a plain query is tested.
  if (!index || query === "" || !/^[\x20-\x7e]+$/.test(query)) return false;
  const files = await indexedFiles(context, adapter.id, index, root);
  if (!files) return false;
  const states = files.map((path) => ({ path, info: statOf(path) }));
  let bytes = 0;
  for (const { info } of states) bytes += info?.size ?? 0;
  if (bytes > MAX_INDEX_BYTES) return false;
  const wanted = query.toLowerCase();
  const words = wordsOf(context.manager);
  for (const { path, info } of states) {
    if (!info) continue;
    const list = await words.of(context, path, info, index.word);
    // Unreadable now (gone, or it leads outside): it cannot be ruled out.
    if (!list || list.some((word) => inOrder(wanted, word))) return false;
  }
  return true;
}

/** Whether `word` holds the characters of `query` in order. */
export function inOrder(query: string, word: string): boolean {
  if (word.length < query.length) return false;
  let at = 0;
  for (let i = 0; i < word.length && at < query.length; i++) {
    if (word[i] === query[at]) at++;
  }
  return at === query.length;
}

/** The distinct words of `text` (lower case), a word as `pattern` (global) finds them. */
export function wordsIn(text: string, pattern: RegExp): string[] {
  const found = new Set<string>();
  for (const match of text.toLowerCase().matchAll(pattern)) found.add(match[0]);
  return [...found];
}

/** The files the server would index, or undefined where they cannot be told. */
function indexedFiles(
  context: ActionContext,
  id: string,
  index: SymbolIndex,
  root: string,
): Promise<WorkspacePath[] | undefined> {
  const find = () => findIndexed(context, index, root);
  if ((context.session.changeTracking?.() ?? "off") === "off") return find();
  let memory = remembered.get(context.manager);
  if (!memory) {
    memory = new Map();
    remembered.set(context.manager, memory);
    // A file created, deleted or moved may join or leave an index: walk again.
    const kept = memory;
    context.manager.onChanges((changes) => {
      if (changes === "lost" || changes.some((c) => c.type !== 2)) kept.clear();
    });
  }
  const key = `${id}@${root}`;
  let files = memory.get(key);
  if (!files) {
    files = find();
    memory.set(key, files);
    const mine = files;
    files.catch(() => memory.get(key) === mine && memory.delete(key));
  }
  return files;
}

const remembered = new WeakMap<ServerManager, Map<string, Promise<WorkspacePath[] | undefined>>>();

async function findIndexed(
  context: ActionContext,
  index: SymbolIndex,
  root: string,
): Promise<WorkspacePath[] | undefined> {
  const { workspace } = context;
  const rel = workspace.relative(root);
  // A root outside the workspace, or one whose name a glob would read as a pattern: ask.
  if (rel.startsWith("/") || /[*?[\]{}!\\]/.test(rel)) return undefined;
  for (const name of index.configs ?? []) {
    try {
      await workspace.resolve(join(root, name));
      return undefined;
    } catch {
      // Not there: the server indexes what it does by default.
    }
  }
  // lspgate's walk skips heavy folders unless a pattern names them: name those the server reads.
  const named = [...DEFAULT_SKIPPED_FOLDERS].filter((f) =>
    !f.startsWith(".") && !index.skips.includes(f)
  );
  const under = rel === "." ? "" : `${rel}/`;
  const extensions = `*.{${index.extensions.map((e) => e.replace(/^\./, "")).join(",")}}`;
  const folders = named.length ? `,**/{${named.join(",")}}/**` : "";
  const found = await workspace.glob(`${under}{**${folders}}/${extensions}`, {
    limit: MAX_INDEX_FILES,
  });
  return found.truncated ? undefined : found.paths;
}

interface Kept {
  dev: number;
  ino: number | null;
  mtime: number | undefined;
  ctime: number | undefined;
  size: number;
  words: string[];
}

/** Each file's words, kept while its identity and state (device, inode, size, times) hold. */
class WordCache {
  readonly #kept = new Map<string, Kept>();

  async of(
    context: ActionContext,
    path: WorkspacePath,
    info: Deno.FileInfo,
    pattern: RegExp,
  ): Promise<string[] | undefined> {
    // One file, one word pattern: its adapter's (an extension is one adapter's).
    const key = `${pattern.source}\0${path}`;
    const kept = this.#kept.get(key);
    if (
      kept && kept.dev === info.dev && kept.ino === info.ino && kept.size === info.size &&
      kept.mtime === info.mtime?.getTime() && kept.ctime === info.ctime?.getTime()
    ) {
      return kept.words;
    }
    let text: string;
    try {
      text = await context.workspace.readText(path, { maxBytes: MAX_INDEX_BYTES });
    } catch {
      this.#kept.delete(key);
      return undefined;
    }
    const words = wordsIn(text, pattern);
    this.#kept.delete(key);
    this.#kept.set(key, {
      dev: info.dev,
      ino: info.ino,
      mtime: info.mtime?.getTime(),
      ctime: info.ctime?.getTime(),
      size: info.size,
      words,
    });
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= MAX_KEPT_FILES) break;
      this.#kept.delete(oldest);
    }
    return words;
  }
}

const caches = new WeakMap<ServerManager, WordCache>();

function wordsOf(manager: ServerManager): WordCache {
  let cache = caches.get(manager);
  if (!cache) caches.set(manager, cache = new WordCache());
  return cache;
}

function statOf(path: string): Deno.FileInfo | undefined {
  try {
    const info = Deno.statSync(path);
    return info.isFile ? info : undefined;
  } catch {
    return undefined;
  }
}
