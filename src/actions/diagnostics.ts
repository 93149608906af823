import type * as proto from "vscode-languageserver-protocol";
import * as z from "../zod.ts";
import { type LspGateError, toLspGateError } from "../errors.ts";
import { boundText, plural } from "../format/bound.ts";
import { type Severity, severityName, severityRank } from "../format/kinds.ts";
import { fromServerRange, type PositionEncoding } from "../lsp/positions.ts";
import type { TextLines } from "../lsp/text_lines.ts";
import type { Lease } from "../servers/manager.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import { sweepAdapters } from "../servers/pick.ts";
import { type QueryDocument, withDocument } from "./document.ts";
import { waitForProject } from "./readiness.ts";
import { syntaxDiagnostics, withSyntaxNote } from "./syntax_only.ts";
import { timeoutField } from "./schema.ts";
import { agentEditsField } from "./text_edits.ts";
import { whatIfDiagnostics } from "./what_if.ts";
import { type ActionContext, type ActionDef, defineAction } from "./types.ts";

/** One diagnostic in `details.files[].diagnostics`. */
export interface DiagnosticView {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  message: string;
  source?: string;
  code?: string | number;
}

/** One file's diagnostics and whether the server spoke for it. */
export interface FileDiagnostics {
  file: string;
  status: "ok" | "timeout" | "unsupported" | "error";
  diagnostics: DiagnosticView[];
  message?: string;
}

const MAX_FILES = 64;
const MAX_WORKSPACE_FILES = 500;
const CONCURRENCY = 8;
const DEFAULT_DIAGNOSTICS_TIMEOUT_MS = 15_000;
/** Longest proposed text (`content`), in UTF-16 units. */
const MAX_PROPOSED_CHARS = 16 * 1024 * 1024;

const schema = z.strictObject({
  file: z.optional(z.string().check(z.minLength(1))),
  files: z.optional(
    z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_FILES)),
  ),
  severity: z.optional(z.enum(["error", "warning", "info", "hint"])),
  content: z.optional(z.string().check(z.maxLength(MAX_PROPOSED_CHARS))),
  edits: z.optional(agentEditsField),
  timeout: timeoutField,
}).check(
  z.refine(
    (v) => (v.file === undefined) !== (v.files === undefined),
    'give one of file (a path, a glob, or "*" for the workspace) or files (up to 64 paths)',
  ),
  z.refine(
    (v) => v.content === undefined || v.edits === undefined,
    "give content (the whole proposed text) or edits (ranges of the file as it is), not both",
  ),
  z.refine(
    (v) => (v.content === undefined && v.edits === undefined) || v.files === undefined,
    "content and edits propose a text for one file: give it as file, not files",
  ),
);

/** diagnostics: errors and warnings of a file, a glob, a list, or the whole workspace. */
export const diagnosticsAction: ActionDef = defineAction({
  name: "diagnostics",
  summary: 'Errors and warnings for a file, a glob, files[] (up to 64), or "*" (workspace); ' +
    "severity filters. With content (a proposed text) or edits: what that text would report, " +
    "new and gone, nothing written.",
  schema,
  access: "read",
  async run(input, context) {
    const timeoutMs = input.timeout ?? DEFAULT_DIAGNOSTICS_TIMEOUT_MS;
    const minimum = severityRank(input.severity ?? "hint");
    if (input.content !== undefined || input.edits !== undefined) {
      return await whatIfDiagnostics(context, { ...input, file: input.file! }, {
        timeoutMs,
        minimum,
        severity: input.severity,
      });
    }
    const { targets, truncated, single, notSwept } = await expandTargets(context, input);
    const results = single
      ? [await checkFile(context, targets[0] as string, timeoutMs, minimum)]
      : await mapBounded(targets, CONCURRENCY, async (target) => {
        if (typeof target !== "string") return target;
        return await fileDiagnostics(context, target, timeoutMs, minimum);
      });
    const answer = withSyntaxNote(
      render(results, { single, truncated, severity: input.severity }),
      results,
    );
    // "Don't know" is never "nothing": files the sweep left out are said, with why.
    if (notSwept.length === 0) return answer;
    const said = notSwept.map((n) => `${n.files} ${n.extension} (${n.reason})`).join(", ");
    return {
      text: `${answer.text}\nNot checked: ${said}.`,
      details: { ...answer.details, notChecked: notSwept },
    };
  },
});

async function expandTargets(
  context: ActionContext,
  input: { file?: string; files?: string[] },
): Promise<{
  targets: (string | FileDiagnostics)[];
  truncated: boolean;
  single: boolean;
  notSwept: { extension: string; files: number; reason: string }[];
}> {
  if (input.files) return { targets: input.files, truncated: false, single: false, notSwept: [] };
  const file = input.file!;
  const isGlob = file === "*" || /[*?[{]/.test(file);
  if (!isGlob) return { targets: [file], truncated: false, single: true, notSwept: [] };
  // Files a language server handles; a linter alone (biome on .json) does not make a target.
  // The workspace-wide sweep leaves out configuration data and servers that are not installed.
  const extensions = new Set(
    (file === "*"
      ? await sweepAdapters(context.manager.options.adapters, context.workspace.path)
      : context.manager.options.adapters.filter((a) => a.kind !== "linter"))
      .flatMap((a) => Object.keys(a.languages)),
  );
  const pattern = file === "*" ? "**/*" : file;
  const limit = file === "*" ? MAX_WORKSPACE_FILES : MAX_FILES;
  const found = await context.workspace.glob(pattern, { limit: 20_000 });
  const handled = found.paths.filter((p) => extensions.has(extensionOf(p)));
  const skipped = file === "*" ? [] : found.paths.filter((p) => !extensions.has(extensionOf(p)));
  const targets: (string | FileDiagnostics)[] = handled.slice(0, limit);
  for (const path of skipped.slice(0, Math.max(0, limit - targets.length))) {
    targets.push({
      file: context.workspace.relative(path),
      status: "unsupported",
      diagnostics: [],
      message: `no language server handles ${extensionOf(path) || "this file type"}`,
    });
  }
  // The sweep's leftovers: files a language server would handle, but whose server is not here.
  const notSwept = new Map<string, { extension: string; files: number; reason: string }>();
  if (file === "*") {
    const languageAdapters = context.manager.options.adapters.filter((a) =>
      a.kind !== "linter" && !context.manager.options.serverConfig?.[a.id]?.disabled
    );
    for (const path of found.paths) {
      const extension = extensionOf(path);
      if (extensions.has(extension)) continue;
      const adapter = languageAdapters.find((a) => extension in a.languages);
      if (!adapter || adapter.workspaceDiagnostics === false) continue;
      const entry = notSwept.get(extension) ??
        { extension, files: 0, reason: `${adapter.id} is not installed` };
      entry.files++;
      notSwept.set(extension, entry);
    }
  }
  return {
    targets,
    truncated: handled.length > limit || found.truncated,
    single: false,
    notSwept: [...notSwept.values()],
  };
}

/** One file's diagnostics; errors (outside, missing, no server) are thrown. */
function checkFile(
  context: ActionContext,
  file: string,
  timeoutMs: number,
  minimum: number,
): Promise<FileDiagnostics> {
  return withDocument<FileDiagnostics>(context, file, async (doc) => {
    // The language server and any linter servers configured for the file, asked together.
    const linters = await context.manager.acquireLinters(doc.path, context.signal);
    try {
      return await diagnose(context, doc, linters, { timeoutMs, minimum });
    } finally {
      for (const lease of linters.leases) lease.release();
    }
  }).catch((error) => syntaxDiagnostics(context, file, error));
}

/** The servers that speak for a file: its language server and its linters, leased. */
export interface DiagnosticSources {
  leases: Lease[];
  failures: { server: string; error: LspGateError }[];
}

/**
 * The diagnostics of an open document from its language server and `linters`, merged, at
 * `minimum` severity or worse; positions counted in `lines` (the text the servers now have).
 */
export async function diagnose(
  context: ActionContext,
  doc: QueryDocument,
  linters: DiagnosticSources,
  options: { timeoutMs: number; minimum: number; lines?: TextLines },
): Promise<FileDiagnostics> {
  const { timeoutMs, minimum } = options;
  const lines = options.lines ?? doc.lines;
  const sources = [
    {
      server: doc.server,
      client: doc.client,
      // A server may report diagnostics in another encoding than it negotiated (a quirk).
      encoding: doc.lease.pick.adapter.diagnosticEncoding ?? doc.encoding,
      uri: doc.uri,
    },
    ...linters.leases.map((l) => ({
      server: l.pick.adapter.id,
      client: l.client,
      encoding: l.pick.adapter.diagnosticEncoding ?? l.client.encoding,
      uri: l.uri,
    })),
  ];
  const results = await Promise.all(sources.map(async (source) => {
    await waitForProject(context, source.client, "file");
    return {
      source,
      raw: await source.client.diagnostics(source.uri, timeoutMs, context.signal),
    };
  }));
  const [primary, ...others] = results;
  if (primary.raw.status === "timeout") {
    return { file: doc.rel, status: "timeout", diagnostics: [], message: primary.raw.reason };
  }
  // Said as not checked, never as clean (gopls on a file its build leaves out).
  if (primary.raw.status === "unchecked") {
    return { file: doc.rel, status: "unsupported", diagnostics: [], message: primary.raw.reason };
  }
  const notes = [
    ...others.filter((r) => r.raw.status !== "ok").map((r) =>
      `${r.source.server}: ${r.raw.reason}`
    ),
    ...linters.failures.map((f) => `${f.server}: ${f.error.code}: ${f.error.message}`),
  ];
  const seen = new Set<string>();
  const diagnostics = results
    .filter((r) => r.raw.status === "ok")
    .flatMap((r) => r.raw.items.map((d) => view(d, lines, r.source.encoding, r.source.server)))
    .filter((d) => severityRank(d.severity) <= minimum)
    .filter((d) => {
      // Two servers reporting the same thing at the same place say it once.
      const key = `${d.line}:${d.column}:${d.endLine}:${d.endColumn}:${d.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
  const result: FileDiagnostics = { file: doc.rel, status: "ok", diagnostics };
  if (notes.length) result.message = notes.join("; ");
  return result;
}

/** One file's diagnostics, with failures reported as the file's status. */
async function fileDiagnostics(
  context: ActionContext,
  file: string,
  timeoutMs: number,
  minimum: number,
): Promise<FileDiagnostics> {
  try {
    return await checkFile(context, file, timeoutMs, minimum);
  } catch (error) {
    const converted = toLspGateError(error);
    if (converted.code === "CANCELLED") throw converted;
    const label = context.workspace.isInside(file) ? context.workspace.relative(file) : file;
    if (converted.code === "NO_SERVER") {
      return { file: label, status: "unsupported", diagnostics: [], message: converted.message };
    }
    if (converted.code === "TIMEOUT") {
      return {
        file: label,
        status: "timeout",
        diagnostics: [],
        message: `diagnostics not available yet (timed out after ${timeoutMs} ms)`,
      };
    }
    return {
      file: label,
      status: "error",
      diagnostics: [],
      message: `${converted.code}: ${converted.message}`,
    };
  }
}

function view(
  d: proto.Diagnostic,
  lines: TextLines,
  encoding: PositionEncoding,
  server: string,
): DiagnosticView {
  const range = fromServerRange(lines, d.range, encoding);
  const result: DiagnosticView = {
    ...range,
    severity: severityName(d.severity),
    message: String(d.message ?? ""),
    // Which server said it matters once several speak for one file.
    source: d.source || server,
  };
  if (d.code !== undefined && d.code !== null) result.code = d.code;
  return result;
}

function render(
  results: FileDiagnostics[],
  options: { single: boolean; truncated: boolean; severity?: string },
) {
  const parts: string[] = [];
  let total = 0;
  for (const result of results) {
    if (result.status !== "ok") {
      parts.push(`${result.file}: ${result.status} — ${result.message ?? ""}`.trim());
      continue;
    }
    total += result.diagnostics.length;
    const note = result.message ? `\n  (not heard from ${result.message})` : "";
    if (result.diagnostics.length === 0) {
      if (options.single) {
        parts.push(`${result.file}: no diagnostics${filterNote(options)}.${note}`);
      } else if (note) parts.push(`${result.file}: no diagnostics.${note}`);
      continue;
    }
    parts.push(`${result.file}: ${summary(result.diagnostics)}`);
    for (const d of result.diagnostics) {
      const origin = [d.source, d.code].filter((x) => x !== undefined && x !== "").join(" ");
      parts.push(
        `  ${d.line}:${d.column} ${d.severity}${origin ? ` ${origin}` : ""}: ` +
          d.message.replace(/\n/g, "\n    "),
      );
    }
    if (note) parts.push(note.slice(1));
  }
  if (!options.single) {
    const checked = results.filter((r) => r.status === "ok");
    const clean = checked.filter((r) => r.diagnostics.length === 0).length;
    // A file that could not be checked (missing, no server…) is not counted as checked.
    const unchecked = results.length - checked.length;
    parts.unshift(
      `${plural(total, "diagnostic")} in ${plural(checked.length, "file")} checked` +
        (clean ? ` (${clean} clean)` : "") +
        (unchecked ? `, ${plural(unchecked, "file")} not checked` : "") + filterNote(options) +
        (total || unchecked ? ":" : "."),
    );
    if (options.truncated) parts.push("… more files matched than were checked; narrow the glob.");
  }
  return {
    text: boundText(parts.join("\n")).text,
    details: {
      files: results,
      total,
      truncated: options.truncated,
      // A sweep that stopped at its bound is a partial answer, said as other workspace-wide ones.
      ...(options.truncated
        ? { partial: true, partialReason: "more files matched than were checked" }
        : {}),
    },
  };
}

function filterNote(options: { severity?: string }): string {
  return options.severity && options.severity !== "hint" ? ` at ${options.severity} or worse` : "";
}

function summary(diagnostics: DiagnosticView[]): string {
  const counts = new Map<string, number>();
  for (const d of diagnostics) counts.set(d.severity, (counts.get(d.severity) ?? 0) + 1);
  return [...counts].map(([severity, n]) => plural(n, severity)).join(", ");
}

function extensionOf(path: string | WorkspacePath): string {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/** Maps with at most `limit` calls in flight, results in input order. */
async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>) {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
