// Small helpers of the client: settings sections, progress text, the key pushes are filed under.
import { LspGateError } from "../errors.ts";

/** A `workspace/configuration` section of the settings (a dotted path), or null. */
export function lookupSection(settings: Record<string, unknown>, section?: string): unknown {
  if (!section) return settings;
  if (section in settings) return settings[section];
  let value: unknown = settings;
  for (const key of section.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}

/** The last segment of a path. */
export function baseName(path: string): string {
  return path.split("/").filter(Boolean).pop() ?? path;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });
}

/**
 * delay() on a timer that keeps no process alive and loads nothing at its first use (Deno's
 * setTimeout is Node's, loaded then: 6–9 ms in an isolate), for a bound on a wait that something
 * else keeps alive (a child process, a watch) before a server is spawned.
 */
export function boundDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const expired = AbortSignal.timeout(ms);
    function done() {
      expired.removeEventListener("abort", done);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    expired.addEventListener("abort", done);
    signal?.addEventListener("abort", done);
  });
}

/**
 * Marks a SERVER_EXITED error for a request the server never received (it was dead already), so
 * the caller may restart it and ask again without risking a request that crashes it twice.
 */
export function notSent(error: LspGateError): LspGateError {
  return new LspGateError(error.code, error.message, { ...error.data, notSent: true });
}

/** "Indexing 45%: 12/30 files" from a progress begin or report. */
export function describeProgress(
  title: string,
  value: { percentage?: number; message?: string },
): string {
  const percent = typeof value.percentage === "number" ? ` ${Math.round(value.percentage)}%` : "";
  const message = typeof value.message === "string" && value.message ? `: ${value.message}` : "";
  return `${title}${percent}${message}`.slice(0, 200);
}

/**
 * The key a document's pushes are filed under: a `file://` URI's decoded path, so a push finds
 * its document however the server escapes the path (servers built on vscode-uri write `@` as
 * %40, `+` as %2B, parentheses as %28/%29). Without node:url, which would load Deno's Node
 * support into every client Worker. Anything else is its own key.
 */
export function pushKey(uri: string): string {
  if (!/^file:/i.test(uri)) return uri;
  try {
    return `file://${decodeURIComponent(new URL(uri).pathname)}`;
  } catch {
    return uri;
  }
}
