import { fileURLToPath, pathToFileURL } from "node:url";

/** The `file://` URI of an absolute path, percent-encoded the way servers write it. */
export function toFileUrl(path: string): string {
  return pathToFileURL(path).href;
}

/** The path of a `file://` URI, or undefined for other schemes and malformed URIs. */
export function fromFileUrl(uri: string): string | undefined {
  if (!/^file:/i.test(uri)) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
