// The adapter's diagnostics hook, asked by the client before it waits for a push.
import { DIAGNOSTICS_HOOKS } from "../../adapters/hooks.ts";
import { LspGateError } from "../errors.ts";
import type { RawDiagnostics } from "./client_types.ts";
import type { DiagnosticsHookContext } from "./diagnostics_hook.ts";

/**
 * The answer of the adapter's diagnostics hook (ClientOptions.diagnosticsHook); undefined where
 * there is none or it could not say, and the push is then awaited. A timeout is said as one.
 */
export async function askDiagnosticsHook(
  context: DiagnosticsHookContext,
  timeoutMs: number,
): Promise<RawDiagnostics | undefined> {
  const name = context.options.diagnosticsHook;
  const hook = name === undefined ? undefined : DIAGNOSTICS_HOOKS[name];
  if (!hook) return undefined;
  try {
    const items = await hook(context);
    if (items && !Array.isArray(items)) {
      return { status: "unchecked", items: [], reason: items.unchecked };
    }
    return items && { status: "ok", items };
  } catch (error) {
    if (!(error instanceof LspGateError)) throw error;
    // The server refused this way (tsserver's "No Project", say): what it pushes still speaks.
    if (error.code === "LSP_ERROR") return undefined;
    if (error.code !== "TIMEOUT") throw error;
    return {
      status: "timeout",
      items: [],
      reason: `diagnostics not available yet (timed out after ${timeoutMs} ms)`,
    };
  }
}
