import * as z from "../zod.ts";
import { LspGateError } from "../errors.ts";
import { accessForRawMethod } from "../permissions/policy.ts";
import { boundText } from "../format/bound.ts";
import { withDocument } from "./document.ts";
import { fileField, timeoutField } from "./schema.ts";
import { type ActionDef, defineAction } from "./types.ts";

/** restart: stops one server (by key from `servers`, or adapter id) or all; next use restarts. */
export const restartAction: ActionDef = defineAction({
  name: "restart",
  summary: "Restart one language server (server: key or adapter id) or all of them.",
  schema: z.strictObject({
    server: z.optional(z.string().check(z.minLength(1))),
    timeout: timeoutField,
  }),
  access: "write",
  async run(input, context) {
    const keys = input.server === undefined
      ? undefined
      : context.manager.entries().filter((e) =>
        e.key === input.server || e.adapter.id === input.server
      )
        .map((e) => e.key);
    if (keys !== undefined && keys.length === 0) {
      throw new LspGateError(
        "INVALID_INPUT",
        `No server ${input.server} is known. Known: ${
          context.manager.entries().map((e) => e.key).join(", ") || "none"
        }.`,
      );
    }
    const stopped = keys === undefined
      ? await context.manager.restart()
      : (await Promise.all(keys.map((k) => context.manager.restart(k)))).flat();
    return {
      text: stopped.length
        ? `Stopped ${stopped.join(", ")}; each starts again on its next request.`
        : "No server was running.",
      details: { restarted: stopped },
    };
  },
});

const payloadField = z.optional(
  z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string()]),
);

/** request: a raw LSP request to the server of `file`; write-class unless the method is read-only. */
export const requestAction: ActionDef = defineAction({
  name: "request",
  summary:
    "A raw LSP request (query = method, payload = params) to the server of file; read-only methods only unless mutations are allowed.",
  schema: z.strictObject({
    query: z.string().check(z.minLength(1)),
    payload: payloadField,
    file: z.optional(fileField),
    timeout: timeoutField,
  }),
  access: (input) => accessForRawMethod(input.query),
  run(input, context) {
    let params: unknown = input.payload ?? {};
    if (typeof params === "string") {
      try {
        params = params.trim() ? JSON.parse(params) : {};
      } catch {
        throw new LspGateError(
          "INVALID_INPUT",
          "payload is a string that is not JSON; give an object.",
        );
      }
    }
    if (!input.file) {
      throw new LspGateError("INVALID_INPUT", "request needs file, to know which server to ask.");
    }
    return withDocument(context, input.file, async (doc) => {
      // A URI in the params makes the server read that file: each must pass the boundary.
      for (const uri of fileUris(params)) await context.workspace.resolveUri(uri);
      // Let callers write `"uri": "$FILE"` rather than compute the server's URI themselves.
      const resolved = JSON.parse(
        JSON.stringify(params).replaceAll('"$FILE"', JSON.stringify(doc.uri)),
      );
      const result = await doc.client.request(input.query, resolved, {
        timeoutMs: context.timeoutMs,
        signal: context.signal,
      });
      const json = JSON.stringify(result, null, 2) ?? "null";
      return {
        text: `${input.query} → ${doc.server}:\n${boundText(json).text}`,
        details: { server: doc.server, method: input.query, result },
      };
    });
  },
});

/** Every string in a JSON value that is a file: URI. */
function fileUris(value: unknown, found: string[] = []): string[] {
  if (typeof value === "string") {
    if (/^file:/i.test(value)) found.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) fileUris(item, found);
  } else if (value && typeof value === "object") {
    // Keys too: WorkspaceEdit.changes is keyed by URI.
    for (const [key, item] of Object.entries(value)) {
      if (/^file:/i.test(key)) found.push(key);
      fileUris(item, found);
    }
  }
  return found;
}
