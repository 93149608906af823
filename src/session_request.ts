// Reading a raw request before it runs: its id, whether it is a cancel, what the policy calls it,
// its field problems in words; and the race that lets a cancel answer at once.
import type * as z from "./zod.ts";
import { canonicalAction } from "./actions/aliases.ts";
import { LspGateError } from "./errors.ts";
import { cancelledMessage } from "./request_id.ts";
import type { RequestId } from "./session.ts";

/**
 * `work`, or CANCELLED as soon as `signal` aborts (at once when it already has); `work` is left to
 * finish on its own, its failure ignored.
 */
export function untilCancelled<T>(work: Promise<T>, signal: AbortSignal, key: string): Promise<T> {
  work.catch(() => {});
  const cancelled = () => new LspGateError("CANCELLED", cancelledMessage(key));
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Whether a raw request is a `cancel` (under any accepted spelling): those are not cancellable. */
export function isCancel(raw: unknown): boolean {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return false;
  const { action, operation } = raw as { action?: unknown; operation?: unknown };
  const name = typeof action === "string" ? action : operation;
  return typeof name === "string" && canonicalAction(name) === "cancel";
}

/** The request's `id` when it is a string or a number, else null. */
export function requestId(raw: unknown): RequestId {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    const id = (raw as { id?: unknown }).id;
    // A number JSON.parse may have rounded is not the id sent: its refusal goes out under null.
    if (typeof id === "number" && !Number.isSafeInteger(id)) return null;
    if (typeof id === "string" || typeof id === "number") return id;
  }
  return null;
}

/** The action as the policy names it ("rename with apply", "request textDocument/hover"). */
export function describeAction(name: string, input: Record<string, unknown>): string {
  if (name === "request") return `request ${input.query}`;
  return input.apply ? `${name} with apply` : name;
}

/** zod's issues with a request's fields, in one line. */
export function describeIssues(error: z.core.$ZodError): string {
  return error.issues.map((issue) => {
    const path = issue.path.join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    }
    return path ? `${path}: ${issue.message}` : issue.message;
  }).join("; ");
}
