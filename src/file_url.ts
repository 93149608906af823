// `file:` URLs and POSIX paths, as node:url's fileURLToPath and pathToFileURL give them (compared
// in file_url_test.ts), without node:url: see posix_path.ts for why no `node:` module is loaded.
import { resolve } from "./posix_path.ts";

/** The absolute path a `file:` URL names; throws TypeError for another scheme, host or a `%2F`. */
export function fileURLToPath(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  if (parsed.hostname !== "") {
    throw new TypeError(`File URL host must be "localhost" or empty on linux`);
  }
  if (/%2f/i.test(parsed.pathname)) {
    throw new TypeError("File URL path must not include encoded / characters");
  }
  return decodeURIComponent(parsed.pathname);
}

/** The `file:` URL of `path`, resolved first, percent-encoded as node:url encodes it. */
export function pathToFileURL(path: string): URL {
  let resolved = resolve(path);
  // resolve() drops a trailing slash, which names a folder in a URL.
  if (path.endsWith("/") && resolved !== "/") resolved += "/";
  let encoded = "";
  for (const byte of new TextEncoder().encode(resolved)) {
    encoded += byte >= 0x80 || ENCODED_ASCII.has(byte)
      ? `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
      : String.fromCharCode(byte);
  }
  return new URL(`file://${encoded}`);
}

/** The ASCII bytes node:url's pathToFileURL percent-encodes in a path (Deno 2.9's). */
const ENCODED_ASCII = new Set([
  ...Array.from({ length: 0x21 }, (_, byte) => byte),
  ...[...'"#%<>?[\\]^`{|}~'].map((c) => c.charCodeAt(0)),
  0x7f,
]);
