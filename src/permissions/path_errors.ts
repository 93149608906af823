// How a path is refused, said in one place: outside a root (the same whatever lies there), a
// problem met inside one (said so the caller can act on it), a name too long, a link loop.
import { LspGateError, toLspGateError } from "../errors.ts";
import { show } from "./paths.ts";

/** Longest file name (one path component) in bytes on the file systems lspgate runs on. */
const MAX_NAME_BYTES = 255;

/**
 * The one refusal for a path outside: the caller's input and the root, nothing found on the way,
 * so it reads the same whether the target exists, is a link, a loop, or is denied.
 */
export function outsideError(input: string, root: string): LspGateError {
  return new LspGateError(
    "OUTSIDE_WORKSPACE",
    `${show(input)} is outside the workspace ${root}.`,
    { path: input },
  );
}

/** A file-system error met inside a root, said as the caller can act on it. */
export function insideError(error: unknown, input: string): LspGateError {
  if (error instanceof LspGateError) return error;
  if (error instanceof Deno.errors.FilesystemLoop) return loop(input);
  if (error instanceof Deno.errors.NotADirectory) {
    const message = `${show(input)} cannot exist: a part of it is a file, not a folder.`;
    return new LspGateError("FILE_NOT_FOUND", message, { path: input });
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new LspGateError(
      "PERMISSION_DENIED",
      `The operating system denied access to ${show(input)}: ${(error as Error).message}`,
      { path: input },
    );
  }
  if ((error as { code?: string }).code === "ENAMETOOLONG") return tooLong(input);
  if (error instanceof Deno.errors.NotFound) {
    return new LspGateError("FILE_NOT_FOUND", `${show(input)} does not exist.`, { path: input });
  }
  return toLspGateError(error);
}

/** Refuses a path with a name longer than a file system allows (255 bytes), before any disk access. */
export function checkNameLengths(lexical: string, input: string): void {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: a shorter name cannot be too long (the usual
  // case, judged without encoding every name of every request's path).
  const safe = Math.floor(MAX_NAME_BYTES / 3);
  if (lexical.length <= safe) return;
  const encoder = new TextEncoder();
  // Judged on the input alone: the OS would say so only for names under a folder that exists.
  const tooLongName = (name: string) =>
    name.length > safe && encoder.encode(name).length > MAX_NAME_BYTES;
  if (lexical.split("/").some(tooLongName)) throw tooLong(input);
}

function tooLong(input: string): LspGateError {
  return new LspGateError("INVALID_INPUT", `${show(input)} has a file name that is too long.`, {
    path: input,
  });
}

function loop(input: string): LspGateError {
  return new LspGateError("INVALID_INPUT", `${show(input)} goes through a symbolic link loop.`, {
    path: input,
  });
}
