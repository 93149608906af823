// POSIX paths as node:path's posix functions give them, result for result (posix_path_test.ts
// compares them on thousands of paths). Not node:path itself: any `node:` import loads Deno's Node
// compatibility layer, which nothing else on the JSON-lines path needs (~11 ms of every start, a
// Worker's included, and ~2 MiB at rest in the bundle).

/** `path` with `.` and `..` segments resolved and repeated slashes made one. */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let body = segments(path, absolute).join("/");
  if (body === "" && !absolute) body = ".";
  if (body !== "" && trailing) body += "/";
  return absolute ? `/${body}` : body;
}

/** The segments of `path` joined with `/`, normalized; "." for none. */
export function join(...paths: string[]): string {
  const joined = paths.filter((path) => path !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/** `paths` resolved right to left into an absolute path, the current directory last. */
export function resolve(...paths: string[]): string {
  let resolved = "";
  for (let i = paths.length - 1; i >= -1 && !resolved.startsWith("/"); i--) {
    const path = i >= 0 ? paths[i] : Deno.cwd();
    if (path === "") continue;
    resolved = resolved === "" ? path : `${path}/${resolved}`;
  }
  return `/${segments(resolved, true).join("/")}`;
}

/** Whether `path` starts at the root. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** The path from `from` to `to`, both resolved first; "" when they are the same. */
export function relative(from: string, to: string): string {
  const fromParts = segments(resolve(from), true);
  const toParts = segments(resolve(to), true);
  let common = 0;
  while (
    common < fromParts.length && common < toParts.length && fromParts[common] === toParts[common]
  ) common++;
  return [...fromParts.slice(common).map(() => ".."), ...toParts.slice(common)].join("/");
}

/** `path` without its last segment (trailing slashes ignored): "." or "/" when none is left. */
export function dirname(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  const slash = path.lastIndexOf("/", end - 1);
  if (slash === -1) return ".";
  if (slash === 0) return "/";
  // As node:path does, a path starting with exactly "//x" keeps both slashes.
  if (slash === 1 && path[0] === "/") return "//";
  return path.slice(0, slash);
}

/** The last segment of `path` (trailing slashes ignored). */
export function basename(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/** The extension of the last segment, from its last dot; "" for none or a leading dot alone. */
export function extname(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "";
  if (dot === 1 && name === "..") return "";
  return name.slice(dot);
}

/** The non-empty segments of `path` with `.` dropped and `..` applied. */
function segments(path: string, absolute: boolean): string[] {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(part);
  }
  return out;
}

/** The same functions under the name node:path gives them. */
export const posix = { normalize, join, resolve, isAbsolute, relative, dirname, basename, extname };
