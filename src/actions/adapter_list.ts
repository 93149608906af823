import { toLspGateError } from "../errors.ts";
import type { ActionContext } from "./types.ts";

/** An adapter as `servers` lists it: what it serves, whether its program is here, tested or not. */
export interface AdapterView {
  id: string;
  kind: "language" | "linter";
  extensions: string[];
  filenames: string[];
  rootMarkers: string[];
  /** The server's program was found (on PATH, in lspgate's tools folder, or as configured). */
  installed: boolean;
  /** The program that would run, when found. */
  command?: string;
  /** Why it was not found or cannot run, when not. */
  problem?: string;
  /** Run against the real server by lspgate's tests (false: written from its documentation). */
  tested: boolean;
  /** Shipped with lspgate, or added in the user's config. */
  origin: "lspgate" | "config";
  /** Turned off in the user's config. */
  disabled: boolean;
  installHint: string;
}

/**
 * Every adapter, each with its program looked up as a start would (PATH, lspgate's tools folder,
 * a configured command; nothing inside the workspace): nothing is run.
 */
export async function listAdapters(context: ActionContext): Promise<AdapterView[]> {
  const { adapters, serverConfig, workspace } = context.manager.options;
  return await Promise.all(adapters.map(async (adapter): Promise<AdapterView> => {
    const config = serverConfig?.[adapter.id];
    const view: AdapterView = {
      id: adapter.id,
      kind: adapter.kind ?? "language",
      extensions: Object.keys(adapter.languages),
      filenames: Object.keys(adapter.filenames ?? {}),
      rootMarkers: adapter.rootMarkers,
      installed: false,
      tested: adapter.tested ?? true,
      origin: adapter.origin ?? "lspgate",
      disabled: config?.disabled ?? false,
      installHint: adapter.installHint,
    };
    try {
      const found = await adapter.resolve({
        root: workspace,
        workspace,
        configuredCommand: config?.command,
        trusted: false,
      });
      view.installed = true;
      view.command = found.command[0];
    } catch (error) {
      const e = toLspGateError(error);
      if (e.code !== "SERVER_NOT_INSTALLED") view.problem = `${e.code}: ${e.message}`;
    }
    return view;
  }));
}

/** One line per adapter, found ones first. */
export function describeAdapters(views: AdapterView[]): string {
  const line = (v: AdapterView) => {
    const files = [...v.extensions, ...v.filenames].join(" ");
    const facts = [
      v.installed ? `installed (${v.command})` : "NOT installed",
      v.kind === "linter" ? "linter" : "",
      v.origin === "config" ? "from your config" : "",
      v.tested ? "" : "untested",
      v.disabled ? "disabled in config" : "",
    ].filter(Boolean).join(", ");
    const hint = v.installed ? "" : ` — ${v.problem ?? v.installHint}`;
    return `  ${v.id} (${files}): ${facts}${hint}`;
  };
  const found = views.filter((v) => v.installed);
  const missing = views.filter((v) => !v.installed);
  return `Adapters (${found.length} of ${views.length} installed; untested = written from the ` +
    `server's documentation, never run by lspgate's tests):\n` +
    [...found, ...missing].map(line).join("\n");
}
