import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import { boundText, plural } from "../format/bound.ts";
import { applyEdits, fromServerRange, type PositionEncoding } from "../lsp/positions.ts";
import { TextLines } from "../lsp/text_lines.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import type { ActionContext } from "./types.ts";
import { pathExists } from "../fs.ts";
import { type Change, transact } from "./transaction.ts";
import { dirname } from "../posix_path.ts";

/** One file's edits as `details.changes` shows them. */
export interface FileChangeView {
  file: string;
  edits: { line: number; column: number; endLine: number; endColumn: number; newText: string }[];
  /** A file operation instead of text edits. */
  operation?: "create" | "rename" | "delete";
  newFile?: string;
}

interface PlannedFile {
  path: WorkspacePath;
  uri: string;
  before: string;
  edits: proto.TextEdit[];
}

interface PlannedOperation {
  kind: "create" | "rename" | "delete";
  path: WorkspacePath;
  target?: WorkspacePath;
}

/** A WorkspaceEdit checked against the boundary and read, ready to preview or apply. */
export interface EditPlan {
  files: PlannedFile[];
  operations: PlannedOperation[];
  encoding: PositionEncoding;
}

/**
 * Checks every file a WorkspaceEdit touches against the workspace boundary (write access) and
 * reads what they hold now; a single file outside refuses the whole edit before anything is written.
 */
export async function planEdit(
  context: ActionContext,
  edit: proto.WorkspaceEdit | null | undefined,
  encoding: PositionEncoding,
): Promise<EditPlan> {
  const plan: EditPlan = { files: [], operations: [], encoding };
  const byPath = new Map<string, PlannedFile>();
  const addEdits = async (uri: string, edits: proto.TextEdit[]) => {
    const path = await context.workspace.resolveUri(uri, { access: "write" });
    // Keyed by real path: two URIs (a symlink and its target) for one file are one file.
    let file = byPath.get(path);
    if (!file) {
      // A file that is not UTF-8 is refused whole: its other bytes would come back as U+FFFD.
      const before = await context.workspace.readText(path, { utf8Only: true });
      file = { path, uri, before, edits: [] };
      byPath.set(path, file);
      plan.files.push(file);
    }
    file.edits.push(...edits.filter((e) => e && e.range && typeof e.newText === "string"));
  };
  for (const [uri, edits] of Object.entries(edit?.changes ?? {})) await addEdits(uri, edits);
  for (const change of edit?.documentChanges ?? []) {
    if ("textDocument" in change) {
      await addEdits(
        change.textDocument.uri,
        change.edits.map((e) => ("newText" in e ? e : e) as proto.TextEdit),
      );
    } else if (change.kind === "create") {
      const path = await context.workspace.resolveUri(change.uri, {
        access: "write",
        mustExist: false,
      });
      // An existing file is replaced only when the server says overwrite, as the protocol says.
      if (await pathExists(path) && !change.options?.overwrite) {
        if (change.options?.ignoreIfExists) continue;
        throw existsConflict(context, path);
      }
      plan.operations.push({ kind: "create", path });
    } else if (change.kind === "rename") {
      const target = await context.workspace.resolveUri(change.newUri, {
        access: "write",
        mustExist: false,
      });
      if (await pathExists(target) && !change.options?.overwrite) {
        if (change.options?.ignoreIfExists) continue;
        throw existsConflict(context, target);
      }
      plan.operations.push({
        kind: "rename",
        path: await context.workspace.resolveUri(change.oldUri, { access: "write" }),
        target,
      });
    } else if (change.kind === "delete") {
      plan.operations.push({
        kind: "delete",
        path: await context.workspace.resolveUri(change.uri, { access: "write" }),
      });
    }
  }
  return plan;
}

/** The plan as `details.changes`, positions in the agent's 1-based code points. */
export function viewPlan(context: ActionContext, plan: EditPlan): FileChangeView[] {
  const views: FileChangeView[] = plan.files.map((file) => {
    const lines = new TextLines(file.before);
    return {
      file: context.workspace.relative(file.path),
      edits: file.edits.map((e) => ({
        ...fromServerRange(lines, e.range, plan.encoding),
        newText: e.newText,
      })).sort((a, b) => a.line - b.line || a.column - b.column),
    };
  });
  for (const op of plan.operations) {
    views.push({
      file: context.workspace.relative(op.path),
      edits: [],
      operation: op.kind,
      ...(op.target ? { newFile: context.workspace.relative(op.target) } : {}),
    });
  }
  return views;
}

/**
 * Writes the plan: every file is re-read first and must still hold what the server saw
 * (else EDIT_CONFLICT, nothing written); then text edits, then file operations.
 */
export async function applyPlan(context: ActionContext, plan: EditPlan): Promise<void> {
  const results: { file: PlannedFile; after: string }[] = [];
  for (const file of plan.files) {
    const now = await context.workspace.readText(file.path);
    if (now !== file.before) {
      throw new LspGateError(
        "EDIT_CONFLICT",
        `${context.workspace.relative(file.path)} changed on disk since the edit was computed; ` +
          "nothing was written. Ask again.",
        { file: context.workspace.relative(file.path) },
      );
    }
    results.push({ file, after: applyEdits(file.before, file.edits, plan.encoding) });
  }
  // All or nothing, also across a crash (transaction.ts): texts first, then file operations.
  const write = (p: string) => context.workspace.resolve(p, { access: "write", mustExist: false });
  const changes: Change[] = [];
  for (const { file, after } of results) {
    changes.push({ kind: "write", path: await write(file.path), text: after });
  }
  for (const op of plan.operations) {
    if (op.kind === "create") changes.push({ kind: "write", path: await write(op.path), text: "" });
    else if (op.kind === "delete") {
      changes.push({
        kind: "delete",
        path: await context.workspace.resolve(op.path, { access: "write" }),
      });
    } else if (op.kind === "rename" && op.target) {
      const from = await context.workspace.resolve(op.path, { access: "write" });
      changes.push({ kind: "move", from, to: await write(op.target) });
    }
  }
  // What each file held when its new text was computed: checked again right before it is replaced
  // (a helper's find: a line another tool appended meanwhile was lost, `ok: true`, and a file
  // swapped for a link was replaced by a regular file).
  const expected = new Map(results.map(({ file }) => [file.path as string, file.before]));
  const recovered = await transact(changes, {
    root: context.workspace.path,
    relative: (p) => context.workspace.relative(p),
    checkTarget: async (p) => {
      const before = expected.get(p);
      if (before === undefined) return;
      const info = await Deno.lstat(p).catch(() => undefined);
      const now = info?.isFile
        ? await context.workspace.readText(await context.workspace.resolve(p)).catch(() =>
          undefined
        )
        : undefined;
      if (now === before) return;
      throw new LspGateError(
        "EDIT_CONFLICT",
        `${context.workspace.relative(p)} changed on disk while the edit was being written.`,
        { file: context.workspace.relative(p) },
      );
    },
    checkFolder: async (p) => {
      // The folder is re-checked right before each rename, as writeText does.
      const folder = dirname(p);
      if ((await Deno.realPath(folder)) !== folder) {
        throw new LspGateError(
          "OUTSIDE_WORKSPACE",
          `${context.workspace.relative(p)} moved outside the workspace ${context.workspace.path}.`,
        );
      }
    },
  });
  if (recovered) context.notes?.push({ text: `Note: ${recovered}`, details: { recovered } });
  await context.manager.filesChanged([
    ...plan.files.map((f) => ({ path: f.path as string, type: 2 as const })),
    ...plan.operations.flatMap((op) =>
      op.kind === "rename" && op.target
        ? [{ path: op.path as string, type: 3 as const }, {
          path: op.target as string,
          type: 1 as const,
        }]
        : [{ path: op.path as string, type: op.kind === "create" ? 1 as const : 3 as const }]
    ),
  ]);
}

/**
 * A stable SHA-256 (hex) of what `plan` would do: for each file touched, its path, the SHA-256 of
 * what it holds now and its edits (ranges in the agent's code points, new texts); for each file
 * operation, its kind, both paths and the SHA-256 of the file it moves or deletes. The same edit
 * of the same files always hashes the same; any change to either changes it.
 */
export async function editHash(context: ActionContext, plan: EditPlan): Promise<string> {
  const views = viewPlan(context, plan);
  const files = await Promise.all(plan.files.map(async (file, i) => ({
    file: views[i].file,
    sha256: await sha256(file.before),
    edits: views[i].edits.map((e) => [e.line, e.column, e.endLine, e.endColumn, e.newText]),
  })));
  files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const operations = await Promise.all(plan.operations.map(async (op) => ({
    kind: op.kind,
    file: context.workspace.relative(op.path),
    newFile: op.target ? context.workspace.relative(op.target) : null,
    sha256: op.kind === "create" ? null : await contentHash(context, op.path),
  })));
  return await sha256(JSON.stringify({ version: 1, files, operations }));
}

/**
 * Applies `plan` if it is the edit the caller previewed: `expected` (the preview's `edit_hash`)
 * absent, or equal to `hash`. Otherwise EDIT_CONFLICT and nothing is written.
 */
export async function applyPreviewed(
  context: ActionContext,
  plan: EditPlan,
  hash: string,
  expected: string | undefined,
): Promise<void> {
  if (expected !== undefined && expected !== hash) {
    throw new LspGateError(
      "EDIT_CONFLICT",
      "The edit is not the one previewed (its edit_hash differs): a file it touches changed on " +
        "disk, or the server now answers differently. Nothing was written; preview again and " +
        "apply with the new edit_hash.",
      { edit_hash: expected },
    );
  }
  await applyPlan(context, plan);
}

async function contentHash(context: ActionContext, path: WorkspacePath): Promise<string | null> {
  const real = await context.workspace.resolve(path);
  // A folder (a server may move or delete one) is hashed by name only.
  if ((await Deno.stat(real)).isDirectory) return null;
  return await sha256(await context.workspace.readText(real));
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Text and details for an edit answer (preview or applied); `hash` is its editHash(). */
export function renderPlan(
  context: ActionContext,
  heading: string,
  plan: EditPlan,
  applied: boolean,
  hash: string,
): { text: string; details: Record<string, unknown> } {
  const changes = viewPlan(context, plan);
  const editCount = changes.reduce((n, c) => n + c.edits.length, 0);
  const lines = [
    `${heading}: ${plural(editCount, "edit")} in ${plural(changes.length, "file")}` +
    (applied ? " (applied)." : " (preview; nothing written)."),
  ];
  for (const change of changes) {
    if (change.operation) {
      lines.push(
        `${change.operation} ${change.file}${change.newFile ? ` → ${change.newFile}` : ""}`,
      );
      continue;
    }
    lines.push(`${change.file}:`);
    for (const e of change.edits) {
      lines.push(
        `  ${e.line}:${e.column}-${e.endLine}:${e.endColumn} → ${JSON.stringify(e.newText)}`,
      );
    }
  }
  // Said last, past any cut: the one thing an agent needs to write exactly this edit.
  const footer = applied
    ? `edit_hash: ${hash}`
    : `To write exactly this, send apply: true with edit_hash: "${hash}".`;
  return {
    text: `${boundText(lines.join("\n")).text}\n${footer}`,
    details: { changes, files: changes.length, edits: editCount, applied, edit_hash: hash },
  };
}

function existsConflict(context: ActionContext, path: string): LspGateError {
  return new LspGateError(
    "EDIT_CONFLICT",
    `the edit would replace ${context.workspace.relative(path)}, which exists, without saying ` +
      "overwrite; nothing was written.",
    { file: context.workspace.relative(path) },
  );
}
