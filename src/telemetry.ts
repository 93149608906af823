// Telemetry: JSON lines appended to a file the user names (`--telemetry FILE` or
// LSPGATE_TELEMETRY), one per event, with timings. Nothing is written unless asked.
import type { Response } from "./session.ts";

/** One telemetry event's fields besides its name and time. */
export type TelemetryFields = Record<string, string | number | boolean | null | undefined>;

/** Where events go. */
export interface Telemetry {
  emit(event: string, fields?: TelemetryFields): void;
  /** Waits until every event so far is on disk. */
  flush(): Promise<void>;
}

/** Appends events to `path` as JSON lines; write errors are reported once on stderr, never thrown. */
export function fileTelemetry(path: string): Telemetry {
  const encoder = new TextEncoder();
  let chain: Promise<void> = Promise.resolve();
  let failed = false;
  let file: Promise<Deno.FsFile> | undefined;
  return {
    emit(event, fields = {}) {
      if (failed) return;
      // The event's name and time are set last: no field can overwrite them.
      const line = JSON.stringify({
        ...fields,
        ts: new Date().toISOString(),
        t: performance.now(),
        event,
      });
      chain = chain.then(async () => {
        try {
          file ??= Deno.open(path, { append: true, create: true });
          await (await file).write(encoder.encode(line + "\n"));
        } catch (error) {
          failed = true;
          console.error(
            `lspgate: telemetry to ${path} stopped: ${
              error instanceof Error ? error.message : error
            }`,
          );
        }
      });
    },
    flush: () => chain,
  };
}

/** The telemetry file asked for: the flag, else LSPGATE_TELEMETRY; undefined when none. */
export function telemetryFrom(flag: string | undefined): Telemetry | undefined {
  let path = flag;
  if (path === undefined) {
    try {
      path = Deno.env.get("LSPGATE_TELEMETRY") || undefined;
    } catch {
      path = undefined;
    }
  }
  return path ? fileTelemetry(path) : undefined;
}

/** Something that answers requests (a Session, a daemon connection). */
export interface Handles {
  handle(raw: unknown): Promise<Response>;
}

/**
 * Emits `request.start` and `request.stop` around each request: action, file, server, duration,
 * ok, error code, partial. `t` (a monotonic ms clock) on both lets a reader check the durations.
 */
export function observeRequests<T extends Handles>(target: T, telemetry: Telemetry): T {
  const handle = target.handle.bind(target);
  const observedHandle = async (raw: unknown) => {
    const request = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const action = String(request.action ?? request.operation ?? "");
    const file = typeof request.file === "string" ? request.file : undefined;
    const id = typeof request.id === "string" || typeof request.id === "number" ? request.id : null;
    const started = performance.now();
    telemetry.emit("request.start", { id, action, file });
    const response = await handle(raw);
    const details = response.ok ? response.details : undefined;
    telemetry.emit("request.stop", {
      id,
      action,
      file,
      server: typeof details?.server === "string" ? details.server : undefined,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      ok: response.ok,
      error: response.ok ? undefined : response.error.code,
      partial: details?.partial === true,
    });
    return response;
  };
  // Everything else is the target's own, called on the target (its private fields stay reachable).
  return new Proxy(target, {
    get(object, property) {
      if (property === "handle") return observedHandle;
      if (property === "close") {
        return async () => {
          await (object as unknown as { close(): Promise<void> }).close();
          await telemetry.flush();
        };
      }
      const value = Reflect.get(object, property, object);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
