// typescript-language-server's diagnostics, asked instead of awaited. It pushes them without a
// version, 300–800 ms after a change (its geterr delay) plus a 50 ms debounce, and not at all when
// a file stays clean (FileDiagnostics.update), so a client can only guess when it has spoken.
// tsserver answers the same diagnostics synchronously when asked; the server forwards any tsserver
// command through `typescript.tsserverRequest` (TSServerRequestCommand) for the file as it has it
// open, after every change sent before (its queue keeps changes as fences). The answer is
// converted here as the server's own toDiagnostic() converts its geterr events.
import type * as proto from "vscode-languageserver-protocol";
import type { DiagnosticsHook } from "../src/lsp/diagnostics_hook.ts";

/** The server's command forwarding a tsserver request (its TSServerRequestCommand). */
const COMMAND = "typescript.tsserverRequest";

/**
 * tsserver's synchronous diagnostics requests, in the order the server lists them when it pushes
 * (FileDiagnostics keeps kinds in the order geterr reports them: syntax, semantic, suggestion).
 */
const REQUESTS = [
  "syntacticDiagnosticsSync",
  "semanticDiagnosticsSync",
  "suggestionDiagnosticsSync",
] as const;

/** tsserver's protocol.Location: 1-based line, 1-based UTF-16 offset. */
interface TsLocation {
  line: number;
  offset: number;
}

/** tsserver's protocol.Diagnostic, as its formatDiag() writes it for events and sync answers. */
interface TsDiagnostic {
  start: TsLocation;
  end: TsLocation;
  text: string;
  code?: number;
  category: string;
  reportsUnnecessary?: unknown;
  reportsDeprecated?: unknown;
  source?: string;
  relatedInformation?: {
    span?: { start: TsLocation; end: TsLocation; file: string };
    message: string;
  }[];
}

/** The server's toDiagnosticSeverity(): anything but warning and suggestion is an error. */
const SEVERITY: Record<string, proto.DiagnosticSeverity> = { warning: 2, suggestion: 4 };

/**
 * typescript-language-server's diagnostics for an open document, asked of tsserver at once through
 * `typescript.tsserverRequest`; undefined where the server offers no such command (another server
 * under the typescript adapter's name) or tsserver gave no answer (a cancelled request).
 */
export const tsserverDiagnostics: DiagnosticsHook<proto.Diagnostic[]> = async (context) => {
  const commands = context.serverCapabilities.executeCommandProvider?.commands ?? [];
  if (!commands.includes(COMMAND)) return undefined;
  const preferences = field(context.options.initializationOptions, "preferences");
  // tsserver's geterr skips the suggestion check when suggestions are disabled.
  const requests = field(preferences, "disableSuggestions") === true
    ? REQUESTS.slice(0, 2)
    : REQUESTS;
  const answers = await Promise.all(
    requests.map((request) =>
      context.request("workspace/executeCommand", {
        command: COMMAND,
        arguments: [request, { file: context.uri }],
      })
    ),
  );
  // The server drops the codes of its `diagnostics.ignoredCodes` setting (sent with the settings).
  const ignored = field(field(context.options.settings, "diagnostics"), "ignoredCodes");
  const ignoredCodes = new Set(Array.isArray(ignored) ? ignored : []);
  // The server adds tags only for a client that said it supports them.
  const tags = Boolean(context.clientCapabilities.textDocument?.publishDiagnostics?.tagSupport);
  const items: proto.Diagnostic[] = [];
  for (const answer of answers) {
    const body = responseBody(answer);
    if (!body) return undefined;
    for (const diagnostic of body) {
      if (diagnostic.code !== undefined && ignoredCodes.has(diagnostic.code)) continue;
      items.push(toDiagnostic(diagnostic, tags));
    }
  }
  return items;
};

/** The diagnostics in a tsserver response; undefined for anything else (no content, cancelled). */
function responseBody(answer: unknown): TsDiagnostic[] | undefined {
  const response = answer as { type?: unknown; success?: unknown; body?: unknown } | null;
  if (response?.type !== "response" || response.success !== true) return undefined;
  return Array.isArray(response.body) ? response.body as TsDiagnostic[] : undefined;
}

/** The server's toDiagnostic(), field for field and in its order. */
function toDiagnostic(d: TsDiagnostic, tags: boolean): proto.Diagnostic {
  const diagnostic: proto.Diagnostic = defined({
    range: { start: position(d.start), end: position(d.end) },
    message: d.text,
    severity: SEVERITY[d.category] ?? 1,
    code: d.code,
    source: d.source || "typescript",
    relatedInformation: d.relatedInformation?.flatMap((info) =>
      info.span
        ? [{
          location: {
            uri: vscodeFileUri(info.span.file),
            range: { start: position(info.span.start), end: position(info.span.end) },
          },
          message: info.message,
        }]
        : []
    ),
  });
  if (tags) {
    diagnostic.tags = [];
    if (d.reportsUnnecessary) diagnostic.tags.push(1);
    if (d.reportsDeprecated) diagnostic.tags.push(2);
  }
  return diagnostic;
}

/** The server's Position.fromLocation(). */
function position(location: TsLocation): proto.Position {
  return { line: Math.max(location.line - 1, 0), character: Math.max(location.offset - 1, 0) };
}

/** The object without its undefined fields, as it reads after a trip through JSON. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object"
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** Characters vscode-uri writes as escapes in a path although URLs may carry them plain. */
const VSCODE_ESCAPES: Record<string, string> = {
  ":": "%3A",
  "?": "%3F",
  "#": "%23",
  "[": "%5B",
  "]": "%5D",
  "@": "%40",
  "!": "%21",
  "$": "%24",
  "&": "%26",
  "'": "%27",
  "(": "%28",
  ")": "%29",
  "*": "%2A",
  "+": "%2B",
  ",": "%2C",
  ";": "%3B",
  "=": "%3D",
  " ": "%20",
};

/**
 * A path's URI as the server writes it (vscode-uri's `URI.file(path).toString()`): letters,
 * digits, `-._~/` kept, everything else escaped, more than a WHATWG URL escapes (`@`, `+`).
 */
export function vscodeFileUri(path: string): string {
  let encoded = "";
  for (const char of path) {
    encoded += /[A-Za-z0-9\-._~/]/.test(char)
      ? char
      : VSCODE_ESCAPES[char] ?? encodeURIComponent(char);
  }
  return `file://${encoded}`;
}
