import { coverageDetails, coverageForQuestion, coverageNote } from "./coverage.ts";
import type * as proto from "vscode-languageserver-protocol";
import type * as z from "../zod.ts";
import { boundList, boundText, plural } from "../format/bound.ts";
import { symbolKindName } from "../format/kinds.ts";
import { fromServerRange, type PositionEncoding } from "../lsp/positions.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { ask, type QueryDocument, withDocument } from "./document.ts";
import { FileCache } from "./locate.ts";
import { resolvePosition } from "./position.ts";
import { readinessNote, waitForProject } from "./readiness.ts";
import { positionSchema } from "./schema.ts";
import { type ActionContext, type ActionDef, defineAction } from "./types.ts";
import { isMethodNotFound, lacking, offers, orRefused, refusedAnswer } from "./refused_methods.ts";
import type { HierarchyItemText } from "../servers/adapter.ts";

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

const schema = positionSchema;

async function itemView(
  context: ActionContext,
  files: FileCache,
  item: Item,
  encoding: PositionEncoding,
  sites?: { uri: string; ranges: proto.Range[] },
  clean?: (item: HierarchyItemText) => HierarchyItemText,
): Promise<HierarchyView> {
  const lines = await files.linesOf(item.uri);
  const path = fromFileUrl(item.uri);
  const at = lines
    ? fromServerRange(lines, item.selectionRange, encoding)
    : { line: item.selectionRange.start.line + 1, column: item.selectionRange.start.character + 1 };
  const text = clean ? clean({ name: item.name, detail: item.detail, uri: item.uri }) : item;
  const view: HierarchyView = {
    name: text.name,
    kind: symbolKindName(item.kind),
    file: path ? context.workspace.relative(path) : item.uri,
    line: at.line,
    column: at.column,
  };
  if (text.detail) view.detail = text.detail;
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

/** A caller, callee or type with the ranges of its calls. */
interface Call<I extends Item = Item> {
  item: I;
  ranges: proto.Range[];
}

const rangeKey = (r: proto.Range) =>
  `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;

/**
 * One entry per item, each call site once, in the server's order. clangd lists each outgoing call
 * site twice (issue 17); an item named twice has its call sites merged.
 */
export function mergeCalls<I extends Item>(calls: Call<I>[]): Call<I>[] {
  const byItem = new Map<string, { call: Call<I>; seen: Set<string> }>();
  for (const call of calls) {
    if (!call?.item?.uri || !call.item.selectionRange) continue;
    const key = `${call.item.uri}\0${call.item.name}\0${rangeKey(call.item.selectionRange)}`;
    let entry = byItem.get(key);
    if (!entry) byItem.set(key, entry = { call: { item: call.item, ranges: [] }, seen: new Set() });
    for (const range of call.ranges ?? []) {
      const at = rangeKey(range);
      if (entry.seen.has(at)) continue;
      entry.seen.add(at);
      entry.call.ranges.push(range);
    }
  }
  return [...byItem.values()].map((e) => e.call);
}

/**
 * One call listed once: callees of one name in one file called from exactly the same sites are
 * the overloads the server resolved that call to (pyright names one `getattr` call once per
 * typeshed overload, issue 17). The first stands for them.
 */
export function foldOverloads<I extends Item>(calls: Call<I>[]): Call<I>[] {
  const seen = new Set<string>();
  return calls.filter((call) => {
    if (call.ranges.length === 0) return true;
    const sites = call.ranges.map(rangeKey).sort().join(",");
    const key = `${call.item.uri}\0${call.item.name}\0${sites}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The hierarchy so far, with the direction the server refused said in place of its calls. */
function withoutOutgoing(
  parts: string[],
  details: Record<string, unknown>,
  refused: { text: string },
  ready: boolean,
  note = "",
) {
  parts.push(refused.text.replace(/^outgoing calls is/, "Outgoing calls are"));
  details.outgoing = null;
  details.outgoingSupported = false;
  return { text: boundText(parts.join("\n\n")).text + readinessNote(ready) + note, details };
}

/** The hierarchy's first step: the position, the project waited for, the items there. */
async function prepare<T>(
  context: ActionContext,
  doc: QueryDocument,
  input: z.infer<typeof schema>,
  method: string,
) {
  const position = await resolvePosition(context, doc, input);
  const ready = await waitForProject(context, doc.client, "workspace");
  const items = await ask<T[] | null>(context, doc.client, method, {
    textDocument: { uri: doc.uri },
    position: position.server,
  });
  return { position, ready, items };
}

async function callHierarchy(
  context: ActionContext,
  doc: QueryDocument,
  input: z.infer<typeof schema>,
  direction: Direction,
  action: string,
) {
  const method = "textDocument/prepareCallHierarchy";
  if (!offers(doc.client, method)) return lacking(action, doc, method);
  const { position, ready, items } = await prepare<proto.CallHierarchyItem>(
    context,
    doc,
    input,
    method,
  );
  if (!items?.length) {
    return {
      text: `No callable symbol at ${position.label}.` + readinessNote(ready, doc.client),
      details: { item: null, calls: [], partial: !ready },
    };
  }
  const files = new FileCache(context);
  const item = items[0];
  const clean = doc.lease.pick.adapter.hierarchyItem;
  const itemInfo = await itemView(context, files, item, doc.encoding, undefined, clean);
  const parts = [
    `${itemInfo.kind} ${itemInfo.name} at ${itemInfo.file}:${itemInfo.line}:${itemInfo.column}`,
  ];
  const details: Record<string, unknown> = { item: itemInfo, partial: !ready };
  let note = "";
  if (direction !== "outgoing") {
    if (!offers(doc.client, "callHierarchy/incomingCalls")) {
      return refusedAnswer(action, doc.client, doc.server, "callHierarchy/incomingCalls");
    }
    // Callers are searched in the files the server sees: said when that is not all (coverage.ts).
    const { coverage: covering } = await coverageForQuestion(context, doc, position);
    const incoming = await ask<proto.CallHierarchyIncomingCall[] | null>(
      context,
      doc.client,
      "callHierarchy/incomingCalls",
      { item },
    );
    const coverage = await covering;
    Object.assign(details, coverageDetails(coverage, ready));
    note = coverageNote(coverage);
    const calls = mergeCalls((incoming ?? []).map((c) => ({ item: c.from, ranges: c.fromRanges })));
    const views = await Promise.all(
      calls.map((call) =>
        itemView(context, files, call.item, doc.encoding, {
          uri: call.item.uri,
          ranges: call.ranges,
        }, clean)
      ),
    );
    // Callers by file and place: pyright's order changes from one run to the next.
    views.sort((a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column
    );
    parts.push(renderItems(`Called by ${plural(views.length, "caller")}:`, views));
    details[direction === "both" ? "incoming" : "calls"] = views;
  }
  if (direction !== "incoming") {
    const outgoingMethod = "callHierarchy/outgoingCalls";
    // A server that answers one direction and refuses the other (clangd 14 has incoming calls
    // only): the hierarchy shows what it has and says what it lacks.
    if (!offers(doc.client, outgoingMethod)) {
      if (direction === "outgoing") {
        return refusedAnswer(action, doc.client, doc.server, outgoingMethod);
      }
      return withoutOutgoing(
        parts,
        details,
        refusedAnswer("outgoing calls", doc.client, doc.server, outgoingMethod),
        ready,
        note,
      );
    }
    const outgoing = await ask<proto.CallHierarchyOutgoingCall[] | null>(
      context,
      doc.client,
      outgoingMethod,
      { item },
    ).catch((error) => {
      if (direction === "outgoing" || !isMethodNotFound(error)) throw error;
      return undefined;
    });
    if (outgoing === undefined) {
      return withoutOutgoing(
        parts,
        details,
        refusedAnswer("outgoing calls", doc.client, doc.server, outgoingMethod),
        ready,
        note,
      );
    }
    const calls = foldOverloads(
      mergeCalls((outgoing ?? []).map((c) => ({ item: c.to, ranges: c.fromRanges }))),
    );
    const views = await Promise.all(
      calls.map((call) =>
        itemView(context, files, call.item, doc.encoding, {
          uri: item.uri,
          ranges: call.ranges,
        }, clean)
      ),
    );
    parts.push(renderItems(`Calls ${plural(views.length, "function")}:`, views));
    details[direction === "both" ? "outgoing" : "calls"] = views;
  }
  return {
    text: boundText(parts.join("\n\n")).text + readinessNote(ready, doc.client) + note,
    details,
  };
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
        (doc) => orRefused(name, doc, () => callHierarchy(context, doc, input, direction, name)),
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
      withDocument(context, input.file, (doc) =>
        orRefused(name, doc, async () => {
          const method = "textDocument/prepareTypeHierarchy";
          if (!offers(doc.client, method)) return lacking(name, doc, method);
          const { position, ready, items } = await prepare<proto.TypeHierarchyItem>(
            context,
            doc,
            input,
            method,
          );
          if (!items?.length) {
            return {
              text: `No type at ${position.label}.` + readinessNote(ready, doc.client),
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
          const clean = doc.lease.pick.adapter.hierarchyItem;
          const views = await Promise.all(
            mergeCalls((related ?? []).map((item) => ({ item, ranges: [] }))).map((call) =>
              itemView(context, files, call.item, doc.encoding, undefined, clean)
            ),
          );
          const heading = `${
            plural(views.length, name === "supertypes" ? "supertype" : "subtype")
          } of ${items[0].name}:`;
          return {
            text: renderItems(heading, views) + readinessNote(ready, doc.client),
            details: { types: views, partial: !ready },
          };
        })),
  });
}

/** supertypes, subtypes. */
export const typeActions: ActionDef[] = [typeAction("supertypes"), typeAction("subtypes")];
