// Where a path really leads, and which root holds it. Only WorkspaceRoot calls this: it alone
// turns the answer into a WorkspacePath, after checking containment.
import { posix } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import { isWithin, show } from "./paths.ts";
import { insideError, outsideError } from "./path_errors.ts";

/** Symlink hops followed by hand (through dangling links) before giving up as a loop. */
const MAX_LINK_HOPS = 40;

/** The roots a path may lie in (WorkspaceRoot is one). */
export interface Roots {
  /** The workspace root's real path: the one writable root. */
  readonly path: string;
  /** Real paths of the read-only roots. */
  readonly readOnlyRoots: readonly string[];
  /** The path relative to the workspace root when inside it, else unchanged. */
  relative(path: string): string;
}

/** The root that holds the real path `real`, and whether it may be written; undefined: none. */
export function ownerOf(
  real: string,
  roots: Roots,
): { root: string; writable: boolean } | undefined {
  // The most specific root wins: a read-only folder inside the root stays read-only.
  let owner: { root: string; writable: boolean } | undefined;
  for (const root of [roots.path, ...roots.readOnlyRoots]) {
    if (isWithin(real, root) && (owner === undefined || root.length > owner.root.length)) {
      owner = { root, writable: root === roots.path };
    }
  }
  return owner;
}

/**
 * The real path of `lexical` and whether it exists. An existing path is realpath'd; anything
 * else is walked again one component at a time (lstat, readlink) to learn why. A failure is
 * judged by where the walk stood: inside a root it is the caller's to hear (a missing file, a
 * file used as a folder, a loop, a refusal by the OS); outside, every failure is the same
 * OUTSIDE_WORKSPACE as an existing path there would be.
 *
 * Architecture Invariant: nothing found outside the roots changes what a refusal says.
 */
export function realize(
  lexical: string,
  input: string,
  roots: Roots,
): { real: string; exists: boolean } {
  try {
    // In the thread, as the walk below: realpath, lstat and readlink open nothing (a FIFO cannot
    // block them), and a hop to Deno's blocking pool per step cost more than the step (a missing
    // config file looked for on every query).
    return { real: Deno.realPathSync(lexical), exists: true };
  } catch {
    // Missing, denied, a loop, a magic link (/proc/self/fd/N): the walk says which, and where.
  }
  let [current, parts] = start(lexical, roots);
  let hops = 0;
  const outside = () => outsideError(input, roots.path);
  const failed = (error: unknown): LspGateError =>
    ownerOf(current, roots) === undefined ? outside() : insideError(error, input);
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = posix.dirname(current);
      continue;
    }
    const next = posix.join(current, part);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (error) {
      if (ownerOf(current, roots) !== undefined && error instanceof Deno.errors.NotFound) {
        // Missing from here on: no symlink can hide in what does not exist.
        return { real: posix.join(next, ...parts), exists: false };
      }
      throw failed(error);
    }
    if (info.isSymlink) {
      if (++hops > MAX_LINK_HOPS) throw failed(new Deno.errors.FilesystemLoop());
      let target: string;
      try {
        target = Deno.readLinkSync(next);
      } catch (error) {
        throw failed(error);
      }
      // A link (dangling or not) is judged by where it points, not where it sits.
      const [from, rest] = target.startsWith("/")
        ? start(target, roots)
        : [current, target.split("/")];
      current = from;
      parts = [...rest, ...parts];
      continue;
    }
    current = next;
    if (!info.isDirectory && parts.some((p) => p !== "" && p !== ".")) {
      if (ownerOf(current, roots) === undefined) throw outside();
      // A path inside a root as messages may show it: relative to the workspace when inside it.
      const name = isWithin(current, roots.path) ? roots.relative(current) : current;
      const message = `${show(input)} cannot exist: ${name} is a file, not a folder.`;
      throw new LspGateError("FILE_NOT_FOUND", message, { path: input });
    }
  }
  return { real: current, exists: true };
}

/** Where a walk of `path` starts: at the root it begins with (known real), else at `/`. */
function start(path: string, roots: Roots): [string, string[]] {
  const parts = path.split("/");
  const all = [roots.path, ...roots.readOnlyRoots].sort((a, b) => b.length - a.length);
  for (const root of all) {
    const prefix = root.split("/");
    if (prefix.every((segment, i) => parts[i] === segment)) {
      return [root, parts.slice(prefix.length)];
    }
  }
  return ["/", parts];
}
