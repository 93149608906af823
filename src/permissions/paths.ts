// Pure, lexical path handling: what an input string means before the disk is asked.
import { posix } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";

/** Longest path, in characters, that an input may name. */
export const MAX_PATH_LENGTH = 4096;

/** Longest `file://` URI accepted: every character of a maximal path percent-encoded. */
export const MAX_URI_LENGTH = 3 * MAX_PATH_LENGTH + 16;

const DRIVE = /^[a-zA-Z]:(?:[\\/]|$)/;
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]+:/;

/** Whether absolute `path` is `root` or lies below it, segment by segment (`/ws-evil` is not in `/ws`). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix);
}

/** Quotes an input for an error message, shortened so a huge input cannot flood the output. */
export function show(input: unknown): string {
  const text = typeof input === "string" ? input : String(input);
  const cut = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return JSON.stringify(cut);
}

/**
 * Turns an agent's or a server's path (relative to `root`, absolute, or a
 * `file://` URI) into a lexically normalised absolute path. The disk is not
 * consulted: symlinks are the caller's job.
 */
export function toAbsolute(input: unknown, root: string): string {
  if (typeof input !== "string") {
    throw invalid(input, `A path must be a string, got ${typeof input}.`);
  }
  if (input.length === 0) throw invalid(input, "The path is empty.");
  if (input.includes("\0")) {
    throw invalid(input, `The path ${show(input)} contains a NUL byte.`);
  }
  if (/^file:/i.test(input)) return posix.normalize(fileUriToPath(input));
  if (input.length > MAX_PATH_LENGTH) {
    throw invalid(
      input,
      `The path is ${input.length} characters long; the limit is ${MAX_PATH_LENGTH}.`,
    );
  }
  rejectForeign(input, input);
  return posix.resolve(root, input);
}

/** Decodes a `file://` URI into an absolute POSIX path (not normalised). */
export function fileUriToPath(uri: string): string {
  if (uri.length > MAX_URI_LENGTH) {
    throw invalid(uri, `The URI is ${uri.length} characters long; the limit is ${MAX_URI_LENGTH}.`);
  }
  if (!/^file:/i.test(uri)) {
    const scheme = uri.match(SCHEME)?.[0] ?? "no scheme";
    throw invalid(uri, `Only file:// URIs name files here; ${show(uri)} has ${scheme}.`);
  }
  // WHATWG URL parsing would quietly turn `\` into `/` in file URLs.
  if (uri.includes("\\")) {
    throw invalid(uri, `The URI ${show(uri)} contains a backslash; encode it or use "/".`);
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid(uri, `${show(uri)} is not a valid URI.`);
  }
  if (url.host !== "" && url.host !== "localhost") {
    throw new LspGateError(
      "OUTSIDE_WORKSPACE",
      `${show(uri)} names the host ${
        show(url.host)
      }; only local files in the workspace can be used.`,
      { path: uri },
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw invalid(uri, `The URI ${show(uri)} has a query or fragment; a file URI has neither.`);
  }
  // A "/" inside a file name cannot exist on POSIX: an encoded one is a trick.
  if (/%2f|%00|%5c/i.test(url.pathname)) {
    throw invalid(uri, `The URI ${show(uri)} encodes "/", "\\" or NUL inside a file name.`);
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    throw invalid(uri, `The URI ${show(uri)} has malformed percent-encoding (not UTF-8).`);
  }
  if (path.length > MAX_PATH_LENGTH) {
    throw invalid(
      uri,
      `The path is ${path.length} characters long; the limit is ${MAX_PATH_LENGTH}.`,
    );
  }
  rejectForeign(path.slice(1), uri);
  return path;
}

/** Rejects Windows paths (outside any POSIX workspace), backslashes and non-file schemes. */
function rejectForeign(path: string, input: string): void {
  if (DRIVE.test(path) || path.startsWith("\\\\")) {
    throw new LspGateError(
      "OUTSIDE_WORKSPACE",
      `${
        show(input)
      } is a Windows path; it cannot lie inside the workspace. Use a path relative to the workspace root.`,
      { path: input },
    );
  }
  if (path.includes("\\")) {
    throw invalid(
      input,
      `The path ${show(input)} contains a backslash; separate folders with "/".`,
    );
  }
  const scheme = path.match(SCHEME)?.[0];
  if (scheme !== undefined && path === input) {
    throw invalid(
      input,
      `Only file:// URIs name files here; ${
        show(input)
      } starts with the scheme ${scheme} (write "./${input}" for a file whose name has a colon).`,
    );
  }
}

function invalid(input: unknown, message: string): LspGateError {
  return new LspGateError("INVALID_INPUT", message, {
    path: typeof input === "string" ? input.slice(0, 200) : undefined,
  });
}
