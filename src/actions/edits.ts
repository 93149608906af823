import type * as proto from "vscode-languageserver-protocol";
import * as z from "../zod.ts";
import { LspGateError } from "../errors.ts";
import { toServerPosition } from "../lsp/positions.ts";
import { ask, notSupported, withDocument } from "./document.ts";
import { resolvePosition } from "./position.ts";
import { waitForProject } from "./readiness.ts";
import {
  columnField,
  editHashField,
  fileField,
  hasPosition,
  lineField,
  NEED_POSITION,
  positionFields,
  timeoutField,
} from "./schema.ts";
import { type ActionDef, defineAction } from "./types.ts";
import { applyPreviewed, editHash, planEdit, renderPlan } from "./workspace_edit.ts";
import {
  CHECK_SUMMARY,
  checkEdit,
  checkFields,
  ifCleanNeedsApply,
  mayWrite,
  withCheck,
} from "./checked_edit.ts";
import { pathExists } from "../fs.ts";
import { moveCoverage, WILL_RENAME } from "./move_coverage.ts";
import {
  allowPartialField,
  coverageDetails,
  coverageForQuestion,
  coverageNote,
  refusePartial,
  withReadiness,
} from "./coverage.ts";

/** Longest a code action waits for the server to publish the file's current diagnostics. */
const PUBLISHED_WAIT_MS = 5000;

const writeIfApplied = (input: { apply?: boolean }) => input.apply ? "write" : "read";

/** `edit_hash` only means something with `apply: true`. */
const hashNeedsApply = [
  (v: { apply?: boolean; edit_hash?: string }) => v.edit_hash === undefined || v.apply === true,
  "edit_hash goes with apply: true (it makes the apply write exactly the previewed edit)",
] as const;

/** rename: a safe cross-file rename; preview unless `apply: true`. */
const renameAction = defineAction({
  name: "rename",
  summary: "Rename the symbol at a position across the project (new_name); preview unless apply. " +
    CHECK_SUMMARY,
  schema: z.strictObject({
    ...positionFields,
    new_name: z.string().check(z.minLength(1)),
    apply: z.optional(z.boolean()),
    edit_hash: editHashField,
    allow_partial: allowPartialField,
    ...checkFields,
  }).check(
    z.refine(hasPosition, NEED_POSITION),
    z.refine(...hashNeedsApply),
    z.refine(...ifCleanNeedsApply),
  ),
  access: writeIfApplied,
  run: (input, context) =>
    withDocument(context, input.file, async (doc) => {
      const method = "textDocument/rename";
      if (!doc.client.supports(method)) return notSupported("rename", doc.server, method);
      // An edit never guesses: a query naming several symbols is AMBIGUOUS_SYMBOL, preview or apply.
      const position = await resolvePosition(context, doc, input, { unique: true });
      const ready = await waitForProject(context, doc.client, "workspace");
      // Before asking where it may first make the server see the whole project, while the server
      // answers where it only judges (coverage.ts). A rename of what the server saw in part would
      // leave the other uses as they were.
      const { coverage: covering } = await coverageForQuestion(context, doc, position);
      const edit = await ask<proto.WorkspaceEdit | null>(context, doc.client, method, {
        textDocument: { uri: doc.uri },
        position: position.server,
        newName: input.new_name,
      });
      const coverage = withReadiness(await covering, ready);
      if (input.apply) refusePartial(coverage, input, "rename");
      if (!edit || (!edit.changes && !edit.documentChanges)) {
        return {
          text: `Nothing to rename at ${position.label}.` + coverageNote(coverage),
          details: {
            changes: [],
            files: 0,
            edits: 0,
            applied: false,
            ...coverageDetails(coverage),
          },
        };
      }
      const plan = await planEdit(context, edit, doc.encoding);
      const hash = await editHash(context, plan);
      const renamed = position.word ? { from: position.word, to: input.new_name } : undefined;
      const check = await checkEdit(context, plan, input, doc.lease, renamed);
      const write = mayWrite(input, check);
      if (write) await applyPreviewed(context, plan, hash, input.edit_hash);
      const subject = position.word ? `\`${position.word}\`` : position.label;
      const heading = `Rename ${subject} to \`${input.new_name}\``;
      const answer = withCheck(renderPlan(context, heading, plan, write, hash), check, input);
      return {
        text: answer.text + coverageNote(coverage),
        details: { ...answer.details, ...coverageDetails(coverage) },
      };
    }),
});

/** rename_file: move a file and let the server update imports; preview unless `apply: true`. */
const renameFileAction = defineAction({
  name: "rename_file",
  summary: "Move a file (new_name = destination) and update imports; preview unless apply.",
  schema: z.strictObject({
    file: fileField,
    new_name: z.string().check(z.minLength(1)),
    apply: z.optional(z.boolean()),
    edit_hash: editHashField,
    allow_partial: allowPartialField,
    timeout: timeoutField,
  }).check(z.refine(...hashNeedsApply)),
  access: writeIfApplied,
  run: (input, context) =>
    withDocument(context, input.file, async (doc) => {
      const target = await context.workspace.resolve(input.new_name, {
        mustExist: false,
        access: "write",
      });
      if (await pathExists(target)) {
        throw new LspGateError(
          "INVALID_INPUT",
          `${context.workspace.relative(target)} already exists; choose another destination.`,
        );
      }
      const newUri = context.workspace.toUri(target);
      const supported = doc.client.supports(WILL_RENAME);
      // Before asking: it may first make the server see the whole project (move_coverage.ts). A
      // move whose imports the server saw in part would break the files it did not update.
      const coverage = await moveCoverage(context, doc, target);
      if (input.apply) refusePartial(coverage, input, "move");
      const edit = supported
        ? await ask<proto.WorkspaceEdit | null>(context, doc.client, WILL_RENAME, {
          files: [{ oldUri: doc.uri, newUri }],
        })
        : null;
      const plan = await planEdit(context, edit, doc.encoding);
      plan.operations.push({ kind: "rename", path: doc.path, target });
      const hash = await editHash(context, plan);
      if (input.apply) {
        await applyPreviewed(context, plan, hash, input.edit_hash);
        await doc.client.closeDocument(doc.uri);
        await doc.client.notify("workspace/didRenameFiles", {
          files: [{ oldUri: doc.uri, newUri }],
        });
      }
      const answer = renderPlan(
        context,
        `Move ${doc.rel} to ${context.workspace.relative(target)}`,
        plan,
        !!input.apply,
        hash,
      );
      return {
        text: answer.text + coverageNote(coverage),
        details: {
          ...answer.details,
          ...(supported ? {} : { supported: false, method: WILL_RENAME }),
          ...coverageDetails(coverage),
        },
      };
    }),
});

/** format: the server's formatting of a file; preview unless `apply: true`. */
const formatAction = defineAction({
  name: "format",
  summary: `Format a file with its language server; preview unless apply. ${CHECK_SUMMARY}`,
  schema: z.strictObject({
    file: fileField,
    apply: z.optional(z.boolean()),
    edit_hash: editHashField,
    ...checkFields,
    timeout: timeoutField,
  }).check(z.refine(...hashNeedsApply), z.refine(...ifCleanNeedsApply)),
  access: writeIfApplied,
  run: (input, context) =>
    withDocument(context, input.file, async (doc) => {
      const method = "textDocument/formatting";
      if (!doc.client.supports(method)) return notSupported("format", doc.server, method);
      const edits = await ask<proto.TextEdit[] | null>(context, doc.client, method, {
        textDocument: { uri: doc.uri },
        options: {
          tabSize: 2,
          insertSpaces: true,
          trimTrailingWhitespace: true,
          insertFinalNewline: true,
        },
      });
      const plan = await planEdit(context, { changes: { [doc.uri]: edits ?? [] } }, doc.encoding);
      const hash = await editHash(context, plan);
      const check = await checkEdit(context, plan, input, doc.lease);
      const write = mayWrite(input, check);
      if (write) await applyPreviewed(context, plan, hash, input.edit_hash);
      return withCheck(renderPlan(context, `Format ${doc.rel}`, plan, write, hash), check, input);
    }),
});

/** code_actions: list the fixes and refactors at a position; apply one picked by `query`. */
const codeActionsAction = defineAction({
  name: "code_actions",
  summary:
    "Quick fixes and refactors at a line or range; query (title) previews one, apply: true writes it. " +
    CHECK_SUMMARY,
  schema: z.strictObject({
    ...positionFields,
    end_line: z.optional(lineField),
    end_column: z.optional(columnField),
    apply: z.optional(z.boolean()),
    edit_hash: editHashField,
    ...checkFields,
  }).check(
    z.refine(
      (v) => v.line !== undefined,
      "code_actions needs line (+ column or symbol, + end_line for a range); query is the title " +
        "of an action to preview or apply",
    ),
    z.refine(...hashNeedsApply),
    z.refine(...ifCleanNeedsApply),
    z.refine(
      (v) => !(v.check || v.if_clean) || v.query !== undefined,
      "check and if_clean need query: the title of the code action to check",
    ),
  ),
  access: writeIfApplied,
  run: (input, context) =>
    withDocument(context, input.file, async (doc) => {
      const method = "textDocument/codeAction";
      if (!doc.client.supports(method)) return notSupported("code_actions", doc.server, method);
      // query picks an action by title here, so the position comes from line/column only.
      const start = await resolvePosition(context, doc, {
        file: input.file,
        line: input.line,
        column: input.column ?? 1,
        symbol: input.symbol,
      });
      const end = input.end_line !== undefined
        ? toServerPosition(
          doc.lines,
          { line: input.end_line, column: input.end_column ?? 1 },
          doc.encoding,
        )
        : start.server;
      await waitForProject(context, doc.client, "file");
      const range = { start: start.server, end };
      const diagnostics = await doc.client.diagnostics(doc.uri, context.timeoutMs, context.signal);
      const overlapping = diagnostics.items.filter((d) =>
        d.range.start.line <= range.end.line && d.range.end.line >= range.start.line
      );
      // Quick fixes are there when the diagnostics are: a server that answers code actions from
      // its own diagnostics (typescript-language-server while its check of an edit is pending)
      // is asked once it has published for the file's current text (bounded; see published()).
      if (overlapping.length > 0) {
        await doc.client.published(
          doc.uri,
          overlapping,
          Math.min(context.timeoutMs, PUBLISHED_WAIT_MS),
          context.signal,
        );
      }
      const actions =
        (await ask<(proto.CodeAction | proto.Command)[] | null>(context, doc.client, method, {
          textDocument: { uri: doc.uri },
          range,
          context: { diagnostics: overlapping, triggerKind: 1 },
        })) ?? [];
      const list = actions.map((a, i) => ({
        index: i + 1,
        title: a.title,
        kind: "kind" in a ? a.kind : undefined,
        preferred: "isPreferred" in a ? a.isPreferred === true : false,
      }));
      if (!input.query) {
        if (input.apply) {
          throw new LspGateError(
            "INVALID_INPUT",
            "apply needs query: the title of the action to apply.",
          );
        }
        return {
          text: list.length
            ? `Code actions at ${start.label}:\n` +
              list.map((a) => `${a.index}. ${a.title}${a.kind ? ` [${a.kind}]` : ""}`).join("\n") +
              "\nPreview one with query: its title (the preview gives its edit_hash), then apply " +
              "it with apply: true, the same query and that edit_hash."
            : `No code actions at ${start.label}.`,
          details: { actions: list },
        };
      }
      const chosen = pickAction(actions, input.query);
      let action = chosen as proto.CodeAction;
      if (!("edit" in action) && "data" in action && doc.client.supports("codeAction/resolve")) {
        action = await ask<proto.CodeAction>(context, doc.client, "codeAction/resolve", action);
      }
      if (!action.edit) {
        throw new LspGateError(
          "ACTION_NOT_ALLOWED",
          `\`${chosen.title}\` runs a server command instead of returning an edit; lspgate only ` +
            "applies edits it can check, so it is not run.",
        );
      }
      const plan = await planEdit(context, action.edit, doc.encoding);
      const hash = await editHash(context, plan);
      const check = await checkEdit(context, plan, input, doc.lease);
      const write = mayWrite(input, check);
      if (write) await applyPreviewed(context, plan, hash, input.edit_hash);
      const heading = write ? `Applied \`${chosen.title}\`` : `\`${chosen.title}\``;
      const rendered = withCheck(renderPlan(context, heading, plan, write, hash), check, input);
      return { text: rendered.text, details: { ...rendered.details, action: chosen.title } };
    }),
});

/**
 * The code action `query` names: the one whose title it is (case aside), else the one whose title
 * contains it. Several: AMBIGUOUS_SYMBOL, preview or apply alike (issue 17's one rule: an edit never
 * guesses, and a preview of a guess hands out an edit_hash for the wrong fix).
 */
function pickAction(
  actions: (proto.CodeAction | proto.Command)[],
  query: string,
): proto.CodeAction | proto.Command {
  const wanted = query.toLowerCase();
  // oh-my-pi's selector may be the action's number in the list (1-based, as the list shows it).
  const index = /^\d+$/.test(query) ? Number(query) : 0;
  if (index >= 1 && index <= actions.length) return actions[index - 1];
  const exact = actions.filter((a) => a.title.toLowerCase() === wanted);
  const matches = exact.length
    ? exact
    : actions.filter((a) => a.title.toLowerCase().includes(wanted));
  if (matches.length === 0) {
    throw new LspGateError(
      "INVALID_INPUT",
      `No code action titled \`${query}\`. Available: ${
        actions.map((a) => a.title).join("; ") || "none"
      }.`,
    );
  }
  if (matches.length > 1) {
    const titles = matches.map((a) => a.title);
    const listed = titles.map((t) => `\`${t}\``).join("; ");
    throw new LspGateError(
      "AMBIGUOUS_SYMBOL",
      `\`${query}\` matches ${matches.length} code actions: ${listed}. Nothing was previewed or ` +
        "written; give the whole title of one.",
      { query, candidates: titles },
    );
  }
  return matches[0];
}

/** rename, rename_file, format, code_actions: read-only previews, writes with apply. */
export const editActions: ActionDef[] = [
  renameAction,
  renameFileAction,
  formatAction,
  codeActionsAction,
];
