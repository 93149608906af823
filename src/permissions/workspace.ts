// The one module that can vouch for a path: every read and write of the tool goes through here
// (realize.ts walks a path for it, path_errors.ts words its refusals; neither makes a WorkspacePath).
import { posix } from "../posix_path.ts";
import { pathToFileURL } from "../file_url.ts";
import { LspGateError, toLspGateError } from "../errors.ts";
import { DEFAULT_MAX_BYTES, readVerified, sameFile, writeAtomic } from "./file_io.ts";
import { GlobMatcher } from "./glob.ts";
import { isWithin, show, toAbsolute } from "./paths.ts";
import type { Access } from "./policy.ts";
import { walkFiles } from "./walk.ts";
import { ownerOf, realize } from "./realize.ts";
import { checkNameLengths, insideError, outsideError } from "./path_errors.ts";

/** A relative path with an empty, `.` or `..` segment, or a trailing slash (or none at all). */
const NOT_NORMALIZED = /^$|(^|\/)\.{0,2}(\/|$)/;

declare const brand: unique symbol;

/**
 * An absolute, symlink-resolved path proven to lie inside the workspace root
 * or a read-only root. Only WorkspaceRoot creates one; never cast to it.
 */
export type WorkspacePath = string & { readonly [brand]: true };

/** Options of WorkspaceRoot.open(). */
export interface WorkspaceRootOptions {
  /** Extra folders that may be read but never written (a toolchain's library). Missing ones are ignored. */
  readOnlyRoots?: string[];
}

/** Options of resolve() and resolveUri(). */
export interface ResolveOptions {
  /** Whether the file must exist (default true); false for e.g. a rename destination. */
  mustExist?: boolean;
  /** `write` refuses read-only roots (default `read`). */
  access?: Access;
}

/** Options of glob(). */
export interface GlobOptions {
  /** Most paths returned (default 10,000); `truncated` says when more matched. */
  limit?: number;
  /** Globs of files or whole folders to leave out, on top of the heavy folders skipped by default. */
  exclude?: string[];
}

/** glob()'s answer: real paths of matching files, sorted; `truncated` when the walk stopped early. */
export interface GlobResult {
  paths: WorkspacePath[];
  truncated: boolean;
}

/** Options of readText(). */
export interface ReadTextOptions {
  /** Largest file read, in bytes (default 64 MiB); larger is INVALID_INPUT. */
  maxBytes?: number;
  /**
   * Bytes that are not UTF-8 are INVALID_INPUT rather than read as U+FFFD: for a file about to be
   * rewritten, whose other bytes the replacement would change.
   */
  utf8Only?: boolean;
}

/** The workspace boundary: resolves inputs to WorkspacePaths and does the tool's file I/O. */
export class WorkspaceRoot {
  /** The root's real path. */
  readonly path: string;
  /** Real paths of the read-only roots. */
  readonly readOnlyRoots: readonly string[];

  private constructor(path: string, readOnlyRoots: string[]) {
    this.path = path;
    this.readOnlyRoots = readOnlyRoots;
  }

  /** Opens the workspace at `dir` (realpath'd); a missing folder is FILE_NOT_FOUND. */
  static async open(dir: string, options: WorkspaceRootOptions = {}): Promise<WorkspaceRoot> {
    const root = await realFolder(dir);
    if (root === undefined) {
      const message = `The workspace root ${show(dir)} is not an existing folder.`;
      throw new LspGateError("FILE_NOT_FOUND", message, { path: dir });
    }
    const readOnly: string[] = [];
    for (const extra of options.readOnlyRoots ?? []) {
      const real = await realFolder(extra);
      if (real !== undefined && real !== root) readOnly.push(real);
    }
    return new WorkspaceRoot(root, readOnly);
  }

  /**
   * Resolves a path (relative to the root, absolute, or `file://`) to a
   * WorkspacePath: normalised, every symlink followed, contained.
   */
  async resolve(input: string, options: ResolveOptions = {}): Promise<WorkspacePath> {
    return await this.#resolveAbsolute(toAbsolute(input, this.path), input, options);
  }

  /** Resolves a `file://` URI a server returned, with the same checks as resolve(). */
  async resolveUri(uri: string, options: ResolveOptions = {}): Promise<WorkspacePath> {
    if (typeof uri !== "string" || !/^file:/i.test(uri)) {
      throw new LspGateError("INVALID_INPUT", `Expected a file:// URI, got ${show(uri)}.`, {
        uri: String(uri).slice(0, 200),
      });
    }
    return await this.resolve(uri, options);
  }

  /** Whether a real absolute path lies in the root or a read-only root (lexical; no disk access). */
  isInside(path: string): boolean {
    return posix.isAbsolute(path) && ownerOf(posix.normalize(path), this) !== undefined;
  }

  /** The path relative to the root with `/` when inside it (`.` for the root), else unchanged. */
  relative(path: string): string {
    if (path === this.path) return ".";
    if (!isWithin(path, this.path)) return path;
    // A normalized path under the root is its rest: every query names one or more (its file, its
    // answer's files), and resolving both paths segment by segment was ~3% of a query's work.
    const rest = path.slice(this.path.endsWith("/") ? this.path.length : this.path.length + 1);
    return NOT_NORMALIZED.test(rest) ? posix.relative(this.path, path) : rest;
  }

  /** The percent-encoded `file://` URI of `p`, as language servers expect. */
  toUri(p: WorkspacePath): string {
    return pathToFileURL(p).href;
  }

  /**
   * Files under the root matching `pattern` (`*`, `**`, `?`, `{a,b}`, `[abc]`;
   * wildcards match dot files). Heavy folders (`.git`, `node_modules`, …) are
   * skipped unless the pattern names them; symlinks are followed only to real
   * paths inside the root. Directories are never returned.
   */
  async glob(pattern: string, options: GlobOptions = {}): Promise<GlobResult> {
    const limit = options.limit ?? 10_000;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new LspGateError(
        "INVALID_INPUT",
        `The glob limit must be a positive integer, got ${limit}.`,
      );
    }
    const match = new GlobMatcher(pattern, this.path);
    const exclude = (options.exclude ?? []).map((p) => new GlobMatcher(p, this.path));
    const result = await walkFiles(this.path, {
      match,
      exclude,
      limit,
      accept: (real) => isWithin(real, this.path),
    });
    return { paths: result.paths as WorkspacePath[], truncated: result.truncated };
  }

  /**
   * Reads `p` as UTF-8 text (lenient; a BOM is kept so writes round-trip).
   * Resolves `p` again and checks the opened file is the one found there, so a
   * symlink swapped in after resolve() cannot lead outside.
   */
  async readText(p: WorkspacePath, options: ReadTextOptions = {}): Promise<string> {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    try {
      const real = await this.#again(p);
      const bytes = await readVerified(real, maxBytes, async (opened) => {
        const again = await this.#again(p);
        if (again !== real || !sameFile(opened, Deno.statSync(again))) {
          const message = `${p} changed while it was being opened; try again.`;
          throw new LspGateError("FILE_NOT_FOUND", message, { path: p });
        }
      });
      try {
        return new TextDecoder("utf-8", { ignoreBOM: true, fatal: options.utf8Only }).decode(bytes);
      } catch {
        throw new LspGateError(
          "INVALID_INPUT",
          `${p} is not UTF-8 (a Latin-1 file, say): rewriting it would replace each of its ` +
            "other non-UTF-8 bytes with U+FFFD, so it is not written",
          { path: p },
        );
      }
    } catch (error) {
      throw this.#fsError(error, p, p);
    }
  }

  /**
   * Writes `text` to `p` atomically (temp file + rename, mode kept), creating
   * missing folders. Only inside the root, never a read-only root; `p` is
   * resolved again first and the folder re-checked just before the rename.
   */
  async writeText(p: WorkspacePath, text: string): Promise<void> {
    if (typeof text !== "string") {
      const message = `The text to write to ${p} must be a string.`;
      throw new LspGateError("INVALID_INPUT", message, { path: p });
    }
    try {
      const target = await this.#again(p, { mustExist: false, access: "write" });
      const folder = posix.dirname(target);
      await this.#ensureFolder(folder, p);
      await writeAtomic(target, new TextEncoder().encode(text), async () => {
        if ((await Deno.realPath(folder)) !== folder) {
          throw outsideError(p, this.path);
        }
      });
    } catch (error) {
      throw this.#fsError(error, p, p);
    }
  }

  /** Resolved in the thread (see realize), answered as a promise: a refusal is a rejection. */
  #resolveAbsolute(
    lexical: string,
    input: string,
    options: ResolveOptions,
  ): Promise<WorkspacePath> {
    try {
      return Promise.resolve(this.#resolveNow(lexical, input, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #resolveNow(lexical: string, input: string, options: ResolveOptions): WorkspacePath {
    const { mustExist = true, access = "read" } = options;
    try {
      checkNameLengths(lexical, input);
      const { real, exists } = realize(lexical, input, this);
      this.#checkContained(real, input, access);
      if (!exists && mustExist) {
        const looked = isWithin(real, this.path) && this.relative(real) !== input
          ? ` (looked for ${this.relative(real)})`
          : "";
        const message = `${show(input)} does not exist${looked}.`;
        throw new LspGateError("FILE_NOT_FOUND", message, { path: input });
      }
      return real as WorkspacePath;
    } catch (error) {
      throw this.#fsError(error, input, lexical);
    }
  }

  /** Re-resolves a WorkspacePath as it is on disk now (it may have changed since it was made). */
  #again(p: WorkspacePath, options: ResolveOptions = {}): Promise<WorkspacePath> {
    if (typeof p !== "string" || !p.startsWith("/") || p.includes("\0")) {
      throw new LspGateError("INVALID_INPUT", `${show(p)} is not a WorkspacePath.`);
    }
    return this.#resolveAbsolute(posix.normalize(p), p, options);
  }

  /** Creates `folder` (real, contained) and its missing parents, then checks no symlink crept in. */
  async #ensureFolder(folder: string, input: string): Promise<void> {
    await Deno.mkdir(folder, { recursive: true });
    const real = await Deno.realPath(folder);
    if (real !== folder) throw outsideError(input, this.path);
  }

  #checkContained(real: string, input: string, access: Access): void {
    const owner = ownerOf(real, this);
    if (owner === undefined) throw outsideError(input, this.path);
    if (access !== "read" && !owner.writable) {
      // Where in the read-only root is not said: the caller's own input is all a refusal echoes.
      throw new LspGateError(
        "OUTSIDE_WORKSPACE",
        `${show(input)} is in a read-only root; ` +
          `only files inside the workspace ${this.path} can be written.`,
        { path: input },
      );
    }
  }

  /** Turns a file-system error into an LspGateError; a denied path outside the root is OUTSIDE_WORKSPACE. */
  #fsError(error: unknown, input: string, lexical: string): LspGateError {
    if (error instanceof LspGateError) return error;
    const inside = this.isInside(lexical);
    const denied = error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied;
    if (!inside && (denied || error instanceof Deno.errors.FilesystemLoop)) {
      return outsideError(input, this.path);
    }
    return insideError(error, input);
  }
}

async function realFolder(dir: string): Promise<string | undefined> {
  if (typeof dir !== "string" || dir === "" || dir.includes("\0")) return undefined;
  try {
    const real = await Deno.realPath(dir);
    return (await Deno.stat(real)).isDirectory ? real : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw toLspGateError(error);
  }
}
