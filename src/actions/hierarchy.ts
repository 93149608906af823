import { coverageDetails, coverageNote, documentCoverage } from "./coverage.ts";
import type * as proto from "vscode-languageserver-protocol";
import { z } from "zod";
import { boundList, boundText, plural } from "../format/bound.ts";
import { symbolKindName } from "../format/kinds.ts";
import { fromServerRange, type PositionEncoding } from "../lsp/positions.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { ask, notSupported, type QueryDocument, withDocument } from "./document.ts";
import { FileCache } from "./locate.ts";
import { resolvePosition } from "./position.ts";
import { readinessNote, waitForProject } from "./readiness.ts";
import { hasPosition, NEED_POSITION, positionFields } from "./schema.ts";
import { type ActionContext, type ActionDef, defineAction } from "./types.ts";

/** A caller, callee or type in `details.calls` / `details.types`. */
export interface HierarchyView {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
  detail?: string;
  /** Where the call happens (in the caller for incoming, in the item for outgoing). */
  callSites?: { line: number; column: number }[];
}

type Item = proto.CallHierarchyItem | proto.TypeHierarchyItem;

const schema = z.strictObject(positionFields).refine(hasPosition, NEED_POSITION);

async function itemView(
  context: ActionContext,
  files: FileCache,
  item: Item,
  encoding: PositionEncoding,
  sites?: { uri: string; ranges: proto.Range[] },
): Promise<HierarchyView> {
  const lines = await files.linesOf(item.uri);
  const path = fromFileUrl(item.uri);
  const at = lines
    ? fromServerRange(lines, item.selectionRange, encoding)
    : { line: item.selectionRange.start.line + 1, column: item.selectionRange.start.character + 1 };
  const view: HierarchyView = {
    name: item.name,
    kind: symbolKindName(item.kind),
    file: path ? context.workspace.relative(path) : item.uri,
    line: at.line,
    column: at.column,
  };
  if (item.detail) view.detail = item.detail;
  if (sites) {
    const siteLines = await files.linesOf(sites.uri);
    view.callSites = sites.ranges.map((r) =>
      siteLines
        ? (({ line, column }) => ({ line, column }))(fromServerRange(siteLines, r, encoding))
        : { line: r.start.line + 1, column: r.start.character + 1 }
    );
  }
  return view;
}

function renderItems(heading: string, views: HierarchyView[]): string {
  const bounded = boundList(views);
  const lines = bounded.items.map((v) => {
    const sites = v.callSites?.length
      ? ` — call${v.callSites.length > 1 ? "s" : ""} at ${
        v.callSites.map((s) => `${s.line}:${s.column}`).join(", ")
      }`
      : "";
    return `${v.kind} ${v.name}${
      v.detail ? ` (${v.detail})` : ""
    }  ${v.file}:${v.line}:${v.column}${sites}`;
  });
  const more = bounded.truncated
    ? [`… ${bounded.total - bounded.items.length} more not shown.`]
    : [];
  return [heading, ...lines, ...more].join("\n");
}

type Direction = "incoming" | "outgoing" | "both";

async function callHierarchy(
  context: ActionContext,
  doc: QueryDocument,
  input: z.infer<typeof schema>,
  direction: Direction,
  action: string,
) {
  const method = "textDocument/prepareCallHierarchy";
  if (!doc.client.supports(method)) return notSupported(action, doc.server, method);
  const position = await resolvePosition(context, doc, input);
  const ready = await waitForProject(context, doc.client, "workspace");
  const items = await ask<proto.CallHierarchyItem[] | null>(context, doc.client, method, {
    textDocument: { uri: doc.uri },
    position: position.server,
  });
  if (!items?.length) {
    return {
      text: `No callable symbol at ${position.label}.` + readinessNote(ready),
      details: { item: null, calls: [], partial: !ready },
    };
  }
  const files = new FileCache(context);
  const item = items[0];
  const itemInfo = await itemView(context, files, item, doc.encoding);
  const parts = [
    `${itemInfo.kind} ${itemInfo.name} at ${itemInfo.file}:${itemInfo.line}:${itemInfo.column}`,
  ];
  const details: Record<string, unknown> = { item: itemInfo, partial: !ready };
  let note = "";
  if (direction !== "outgoing") {
    // Callers are searched in the files the server sees: said when that is not all (coverage.ts).
    const coverage = await documentCoverage(context, doc);
    Object.assign(details, coverageDetails(coverage, ready));
    note = coverageNote(coverage);
    const incoming = await ask<proto.CallHierarchyIncomingCall[] | null>(
      context,
      doc.client,
      "callHierarchy/incomingCalls",
      { item },
    );
    const views = await Promise.all(
      (incoming ?? []).map((call) =>
        itemView(context, files, call.from, doc.encoding, {
          uri: call.from.uri,
          ranges: call.fromRanges,
        })
      ),
    );
    parts.push(renderItems(`Called by ${plural(views.length, "caller")}:`, views));
    details[direction === "both" ? "incoming" : "calls"] = views;
  }
  if (direction !== "incoming") {
    const outgoing = await ask<proto.CallHierarchyOutgoingCall[] | null>(
      context,
      doc.client,
      "callHierarchy/outgoingCalls",
      { item },
    );
    const views = await Promise.all(
      (outgoing ?? []).map((call) =>
        itemView(context, files, call.to, doc.encoding, { uri: item.uri, ranges: call.fromRanges })
      ),
    );
    parts.push(renderItems(`Calls ${plural(views.length, "function")}:`, views));
    details[direction === "both" ? "outgoing" : "calls"] = views;
  }
  return { text: boundText(parts.join("\n\n")).text + readinessNote(ready) + note, details };
}

function callAction(name: string, direction: Direction, summary: string): ActionDef {
  return defineAction({
    name,
    summary,
    schema,
    access: "read",
    run: (input, context) =>
      withDocument(
        context,
        input.file,
        (doc) => callHierarchy(context, doc, input, direction, name),
      ),
  });
}

/** call_hierarchy, incoming_calls, outgoing_calls. */
export const callActions: ActionDef[] = [
  callAction("call_hierarchy", "both", "The function at a position, its callers and its callees."),
  callAction("incoming_calls", "incoming", "Who calls the function at a position."),
  callAction("outgoing_calls", "outgoing", "What the function at a position calls."),
];

function typeAction(name: "supertypes" | "subtypes"): ActionDef {
  return defineAction({
    name,
    summary: name === "supertypes"
      ? "The types the type at a position extends or implements."
      : "The types that extend or implement the type at a position.",
    schema,
    access: "read",
    run: (input, context) =>
      withDocument(context, input.file, async (doc) => {
        const method = "textDocument/prepareTypeHierarchy";
        if (!doc.client.supports(method)) return notSupported(name, doc.server, method);
        const position = await resolvePosition(context, doc, input);
        const ready = await waitForProject(context, doc.client, "workspace");
        const items = await ask<proto.TypeHierarchyItem[] | null>(context, doc.client, method, {
          textDocument: { uri: doc.uri },
          position: position.server,
        });
        if (!items?.length) {
          return {
            text: `No type at ${position.label}.` + readinessNote(ready),
            details: { types: [], partial: !ready },
          };
        }
        const related = await ask<proto.TypeHierarchyItem[] | null>(
          context,
          doc.client,
          `typeHierarchy/${name}`,
          { item: items[0] },
        );
        const files = new FileCache(context);
        const views = await Promise.all(
          (related ?? []).map((item) => itemView(context, files, item, doc.encoding)),
        );
        const heading = `${
          plural(views.length, name === "supertypes" ? "supertype" : "subtype")
        } of ${items[0].name}:`;
        return {
          text: renderItems(heading, views) + readinessNote(ready),
          details: { types: views, partial: !ready },
        };
      }),
  });
}

/** supertypes, subtypes. */
export const typeActions: ActionDef[] = [typeAction("supertypes"), typeAction("subtypes")];
