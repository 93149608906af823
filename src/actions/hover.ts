import type * as proto from "vscode-languageserver-protocol";
import { boundText } from "../format/bound.ts";
import { hoverMarkdown, signatureText } from "../format/hover.ts";
import { fromServerRange } from "../lsp/positions.ts";
import { ask, withDocument } from "./document.ts";
import { resolvePosition } from "./position.ts";
import {
  emptyAnswerProblem,
  loadingReason,
  loadProblem,
  readinessNote,
  waitForProject,
} from "./readiness.ts";
import { positionSchema } from "./schema.ts";
import { type ActionDef, defineAction } from "./types.ts";
import { lacking, offers, orRefused } from "./refused_methods.ts";

const schema = positionSchema;

/**
 * The type pyright and basedpyright give what they could not learn, as the whole type of the name
 * (`(function) cow: Unknown`); an untyped parameter's `Unknown` in a known signature is no sign.
 */
const UNKNOWN_TYPE = /^\([\w ]+\) [^\n]*?: Unknown$/m;

/** The code blocks of a hover's markdown (its signature, not its documentation's words). */
function codeOf(markdown: string): string {
  return [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/** hover: the type and documentation of the symbol at a position. */
export const hoverAction: ActionDef = defineAction({
  name: "hover",
  summary: "Type and documentation of the symbol at a position.",
  schema,
  access: "read",
  run: (input, context) =>
    withDocument(context, input.file, (doc) =>
      orRefused("hover", doc, async () => {
        const method = "textDocument/hover";
        if (!offers(doc.client, method)) return lacking("hover", doc, method);
        const position = await resolvePosition(context, doc, input);
        const waited = await waitForProject(context, doc.client, "file", doc.uri);
        // What the server said about loading, as of its answer.
        let ready = waited && loadProblem(doc.client, "file", doc.uri) === undefined;
        const hover = await ask<proto.Hover | null>(context, doc.client, method, {
          textDocument: { uri: doc.uri },
          position: position.server,
        });
        const markdown = hover ? hoverMarkdown(hover.contents) : "";
        if (!markdown.trim()) {
          // Nothing known in a file with an import the server could not resolve: don't know.
          const problem = ready
            ? await emptyAnswerProblem(context, doc.client, doc.uri)
            : undefined;
          if (problem !== undefined) ready = false;
          return {
            text: `No hover information at ${position.label}.` +
              readinessNote(ready, doc.client, { scope: "file", uri: doc.uri }, problem),
            details: {
              text: "",
              range: null,
              ...(ready
                ? { partial: false }
                : { partial: true, partialReason: loadingReason(problem) }),
            },
          };
        }
        if (ready && UNKNOWN_TYPE.test(codeOf(markdown))) {
          // pyright's word for a type it could not learn: from a broken import, don't know.
          ready = await emptyAnswerProblem(context, doc.client, doc.uri) === undefined;
        }
        const range = hover?.range ? fromServerRange(doc.lines, hover.range, doc.encoding) : null;
        const bounded = boundText(markdown);
        return {
          text: `Hover at ${position.label}:\n\n${bounded.text}` +
            readinessNote(ready, doc.client, { scope: "file", uri: doc.uri }),
          details: { text: bounded.text, truncated: bounded.cut, range, partial: !ready },
        };
      })),
});

/** signature: the signature of the call at a position, with the active parameter. */
export const signatureAction: ActionDef = defineAction({
  name: "signature",
  summary: "Signature help for the call around a position (put the position inside the parens).",
  schema,
  access: "read",
  run: (input, context) =>
    withDocument(context, input.file, (doc) =>
      orRefused("signature", doc, async () => {
        const method = "textDocument/signatureHelp";
        if (!offers(doc.client, method)) return lacking("signature", doc, method);
        const position = await resolvePosition(context, doc, input);
        const ready = await waitForProject(context, doc.client, "file", doc.uri);
        const help = await ask<proto.SignatureHelp | null>(context, doc.client, method, {
          textDocument: { uri: doc.uri },
          position: position.server,
          context: { triggerKind: 1, isRetrigger: false },
        });
        if (!help || !help.signatures?.length) {
          return {
            text:
              `No signature at ${position.label} (is the position inside a call's parentheses?).` +
              readinessNote(ready, doc.client, { scope: "file", uri: doc.uri }),
            details: { signatures: [], partial: !ready },
          };
        }
        const signatures = help.signatures.map((s, i) => ({
          label: s.label,
          documentation: hoverMarkdown(s.documentation ?? ""),
          parameters: (s.parameters ?? []).map((p) =>
            typeof p.label === "string" ? p.label : s.label.slice(p.label[0], p.label[1])
          ),
          active: i === (help.activeSignature ?? 0),
          activeParameter: s.activeParameter ?? help.activeParameter ?? null,
        }));
        return {
          text: boundText(signatureText(position.label, signatures)).text +
            readinessNote(ready, doc.client, { scope: "file", uri: doc.uri }),
          details: { signatures, partial: !ready },
        };
      })),
});
