// lspgate's own workspace watcher: inotify through libc (Deno FFI, its --allow-ffi grant scoped to
// libc, and --allow-read to list the folders it watches), run as a process of its own that writes
// the changes as JSON lines, in the kernel's order. One process watches every root lspgate asks it
// to (the daemon's many), each with an inotify instance of its own.
//
// Rationale: Deno's watchFs (the notify crate) watches with IN_OPEN in its mask, so every file a
// server opens reaches lspgate's watcher thread: pyright opens each source file again for every
// references question (~60 on pygments), 1.6 ms of lspgate's CPU a question beside the server on
// 2 cores (measured: watching without the root took references 35.3 → 32.9 ms). Here the mask is
// the changes only; and nothing is ever opened, so a FIFO in the workspace cannot stall it. One
// process for many roots: each Deno process is ~11 MiB of its own. An instance per root keeps one
// root's queue overflow (a flood of changes) from costing the others their exact tracking.
//
// Run as `deno run --allow-ffi=LIBC --allow-read[=ROOT,BARRIER] inotify_watch.ts LIBC`
// (inotify_process.ts). stdin: one command per line, `{ "add": ID, "root", "barrier"? }` or
// `{ "remove": ID }`; stdout: one JSON line per event, `{ id, kind, paths, flag? }` as Deno's
// FsEvent has them, a root's first being `{ "kind": "watching" }` or `"failed"`; an event without
// an id is the whole process failing. It exits when its stdin ends (lspgate is gone).
// Kept free of node: imports, which would load Deno's Node support into this small process.
import { readLines } from "../frontends/lines.ts";
import { skipsFolder } from "../permissions/skipped_folders.ts";
import type { WatchEvent } from "./watch_protocol.ts";

/** The argument that makes the bundled lspgate act as this watcher. */
export const INOTIFY_ARG = "--lspgate-inotify-watch";

const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_ISDIR = 0x40000000;
const IN_CLOEXEC = 0o2000000;

/** Changes only: no IN_OPEN, IN_ACCESS or IN_CLOSE_NOWRITE (what others' reads raise). */
const MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE |
  IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;

function libcOf(path: string) {
  return Deno.dlopen(path, {
    init: { name: "inotify_init1", parameters: ["i32"], result: "i32" },
    add: { name: "inotify_add_watch", parameters: ["i32", "buffer", "u32"], result: "i32" },
    remove: { name: "inotify_rm_watch", parameters: ["i32", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
    // Blocks until events come: on a thread of Deno's, not this one.
    read: { parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
  });
}

type Libc = ReturnType<typeof libcOf>;

/** A command from lspgate (see the top of this file). */
export type WatcherCommand = { add: number; root: string; barrier?: string } | { remove: number };

/** An event of the root added as `id`; without an id, of the whole process. */
export type TaggedWatchEvent = WatchEvent & { id?: number };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Folders listed between two turns of this thread, so other roots' events are not held back. */
const FOLDERS_PER_TURN = 200;

/** Serves lspgate's commands: watches each root added until it is removed, or stdin ends. */
export async function watchWithInotify(args: string[]): Promise<void> {
  const [libcFile] = args;
  const say = (event: TaggedWatchEvent) => {
    const line = encoder.encode(JSON.stringify(event) + "\n");
    for (let at = 0; at < line.length;) at += Deno.stdout.writeSync(line.subarray(at));
  };
  let libc: Libc;
  try {
    libc = libcOf(libcFile);
  } catch (error) {
    say({ kind: "failed", paths: [], message: `libc: ${(error as Error).message}` });
    return;
  }
  const roots = new Map<number, { remove(): void }>();
  for await (const line of readLines(Deno.stdin)) {
    let command: WatcherCommand;
    try {
      command = JSON.parse(line as string);
    } catch {
      continue; // Not a command of lspgate's.
    }
    if ("add" in command) {
      const id = command.add;
      roots.get(id)?.remove();
      roots.set(
        id,
        watchRoot(libc, command.root, command.barrier, (event) => say({ ...event, id })),
      );
    } else {
      roots.get(command.remove)?.remove();
      roots.delete(command.remove);
    }
  }
  // lspgate gone (its end of our stdin closed): nothing more to say.
  Deno.exit(0);
}

/**
 * Watches `root` (every folder under it, links not followed) and `barrier` with an inotify
 * instance of their own, saying each event; remove() ends it.
 */
function watchRoot(
  libc: Libc,
  root: string,
  barrier: string | undefined,
  say: (event: WatchEvent) => void,
): { remove(): void } {
  let removed = false;
  const fd = libc.symbols.init(IN_CLOEXEC);
  const folders = new Map<number, string>();
  const handle = {
    remove() {
      if (removed) return;
      removed = true;
      // Each watch removed queues IN_IGNORED, which ends a read in progress; the loop then ends
      // and closes the instance. (The root's own watch is held while the loop reads.)
      for (const wd of folders.keys()) libc.symbols.remove(fd, wd);
      folders.clear();
    },
  };
  if (fd < 0) {
    say({ kind: "failed", paths: [], message: "inotify_init1 failed" });
    removed = true;
    return handle;
  }
  /** Ends this root's watching, having said why. */
  const fail = (message: string) => {
    say({ kind: "failed", paths: [], message });
    handle.remove();
  };
  /** Folders whose watch could not be set though they are there to read (the watch limit). */
  const unwatched: string[] = [];
  let listed = 0;
  const watch = (folder: string): boolean => {
    const wd = libc.symbols.add(fd, encoder.encode(folder + "\0"), MASK);
    if (wd >= 0) {
      folders.set(wd, folder);
      return true;
    }
    // Gone or unreadable meanwhile: nothing there to watch. Otherwise the kernel refused a watch
    // (fs.inotify.max_user_watches): its changes would go unseen, which is said, not skipped.
    if (readable(folder)) unwatched.push(folder);
    return false;
  };
  /**
   * Watches `folder` and every folder under it but the heavy ones (dependencies, VCS data, a build
   * tool's `target`: their changes are not reported, watched.ts); `found` hears each entry met on
   * the way. `beside`: the names in `folder`'s parent, where the caller listed it.
   */
  const watchTree = async (
    folder: string,
    found?: (path: string) => void,
    beside?: ReadonlySet<string>,
  ): Promise<void> => {
    if (
      folder !== root && skipsFolder(folder.slice(folder.lastIndexOf("/") + 1), (file) => {
        beside ??= namesIn(folder.slice(0, folder.lastIndexOf("/")));
        return beside.has(file);
      })
    ) return;
    if (removed || !watch(folder)) return;
    if (++listed % FOLDERS_PER_TURN === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      return; // Gone or unreadable meanwhile: its own events say so.
    }
    const names = new Set(entries.map((entry) => entry.name));
    for (const entry of entries) {
      const path = `${folder}/${entry.name}`;
      found?.(path);
      if (entry.isDirectory) await watchTree(path, found, names);
    }
  };
  const refusal = () =>
    `the kernel refused to watch ${unwatched[0]}` +
    (unwatched.length > 1 ? ` and ${unwatched.length - 1} more folders` : "") +
    " (the inotify watch limit: sysctl fs.inotify.max_user_watches)";
  const buffer = new Uint8Array(64 * 1024);
  const view = new DataView(buffer.buffer);
  let movedFrom: { cookie: number; path: string; isDir: boolean } | undefined;
  const leftBehind = () => {
    // A folder's watches follow its inode wherever it goes: one moved out is no longer watched,
    // so nothing done to it outside the root is reported under its old name.
    if (movedFrom?.isDir) {
      for (const [wd, folder] of folders) {
        if (folder !== movedFrom.path && !folder.startsWith(movedFrom.path + "/")) continue;
        libc.symbols.remove(fd, wd);
        folders.delete(wd);
      }
    }
    // Moved out of the tree: removed, as far as the workspace is concerned.
    if (movedFrom) say({ kind: "remove", paths: [movedFrom.path] });
    movedFrom = undefined;
  };
  const created = (inside: string) => say({ kind: "create", paths: [inside] });

  const serve = async () => {
    await watchTree(root);
    if (removed) return;
    if (!folders.size || (barrier !== undefined && !watch(barrier))) {
      return fail(`cannot watch ${root} (inotify_add_watch)`);
    }
    if (unwatched.length) return fail(refusal());
    say({ kind: "watching", paths: [] });
    for (;;) {
      const n = Number(await libc.symbols.read(fd, buffer, BigInt(buffer.length)));
      if (removed) return;
      if (n <= 0) return fail("reading inotify failed");
      for (let at = 0; at < n;) {
        const wd = view.getInt32(at, true);
        const mask = view.getUint32(at + 4, true);
        const cookie = view.getUint32(at + 8, true);
        const length = view.getUint32(at + 12, true);
        const nameBytes = buffer.subarray(at + 16, at + 16 + length);
        const end = nameBytes.indexOf(0);
        const name = decoder.decode(end === -1 ? nameBytes : nameBytes.subarray(0, end));
        at += 16 + length;
        if (mask & IN_Q_OVERFLOW) {
          leftBehind();
          say({ kind: "other", paths: [], flag: "rescan" });
          continue;
        }
        const folder = folders.get(wd);
        if (folder === undefined) continue;
        if (mask & IN_IGNORED) {
          folders.delete(wd);
          continue;
        }
        if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
          if (folder === root) return fail(`${root} is gone`);
          continue;
        }
        const path = name ? `${folder}/${name}` : folder;
        const isDir = (mask & IN_ISDIR) !== 0;
        if (mask & IN_MOVED_FROM) {
          leftBehind();
          movedFrom = { cookie, path, isDir };
          continue;
        }
        if (mask & IN_MOVED_TO) {
          const from = movedFrom?.cookie === cookie ? movedFrom.path : undefined;
          movedFrom = undefined;
          if (from !== undefined) {
            say({ kind: "rename", paths: [from, path] });
            // A folder that was not watched (a heavy one's name) is watched under its new one.
            if (isDir && !renameFolders(folders, from, path)) await watchTree(path, created);
          } else {
            created(path);
            if (isDir) await watchTree(path, created);
          }
          continue;
        }
        leftBehind();
        if (mask & IN_CREATE) {
          created(path);
          // What was made inside before its watch was set is reported as made.
          if (isDir) await watchTree(path, created);
          if (unwatched.length) return fail(refusal());
        } else if (mask & IN_DELETE) {
          say({ kind: "remove", paths: [path] });
        } else if (mask & (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)) {
          say({ kind: "modify", paths: [path] });
        }
      }
      leftBehind();
    }
  };
  serve().catch((error) => fail(String(error))).finally(() => libc.symbols.close(fd));
  return handle;
}

/**
 * A folder moved inside the tree keeps its watches: they now name its new place. Whether it had
 * any.
 */
function renameFolders(folders: Map<number, string>, from: string, to: string): boolean {
  let had = false;
  for (const [wd, folder] of folders) {
    if (folder === from) folders.set(wd, to);
    else if (folder.startsWith(from + "/")) folders.set(wd, to + folder.slice(from.length));
    else continue;
    had = true;
  }
  return had;
}

/** Whether `folder` can be listed (it is there, and this process may read it). */
function readable(folder: string): boolean {
  try {
    Deno.readDirSync(folder)[Symbol.iterator]().next();
    return true;
  } catch {
    return false;
  }
}

/** The names in `folder`, or none where it cannot be listed. */
function namesIn(folder: string): Set<string> {
  try {
    return new Set([...Deno.readDirSync(folder)].map((entry) => entry.name));
  } catch {
    return new Set();
  }
}

if (import.meta.main && import.meta.url.endsWith("/inotify_watch.ts")) {
  await watchWithInotify(Deno.args);
}
