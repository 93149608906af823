import { fileURLToPath, pathToFileURL } from "../file_url.ts";

// The last paths turned into URIs and back: each query turns its file's path again, and each
// location of an answer its URI, and building a URL costs ~0.02 ms.
const recentUrls = new Map<string, string>();
const RECENT_URLS = 256;

/** The `file://` URI of an absolute path, percent-encoded the way servers write it. */
export function toFileUrl(path: string): string {
  let href = recentUrls.get(path);
  if (href === undefined) {
    href = pathToFileURL(path).href;
    if (recentUrls.size >= RECENT_URLS) recentUrls.clear();
    recentUrls.set(path, href);
  }
  return href;
}

const recentPaths = new Map<string, string | undefined>();

/** The path of a `file://` URI, or undefined for other schemes and malformed URIs. */
export function fromFileUrl(uri: string): string | undefined {
  if (recentPaths.has(uri)) return recentPaths.get(uri);
  let path: string | undefined;
  try {
    path = /^file:/i.test(uri) ? fileURLToPath(uri) : undefined;
  } catch {
    path = undefined;
  }
  if (recentPaths.size >= RECENT_URLS) recentPaths.clear();
  recentPaths.set(uri, path);
  return path;
}
