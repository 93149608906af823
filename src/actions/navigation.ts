import * as z from "../zod.ts";
import { renderLocations } from "../format/locations.ts";
import { plural } from "../format/bound.ts";
import { ask, withDocument } from "./document.ts";
import { type RawLocations, rawLocations, toAgentLocations } from "./locate.ts";
import { resolvePosition } from "./position.ts";
import { hasPosition, NEED_POSITION, positionFields, positionSchema } from "./schema.ts";
import { type ActionDef, defineAction } from "./types.ts";
import { lacking, offers, orRefused } from "./refused_methods.ts";
import { MAX_WITH_CONTEXT } from "../format/bound.ts";
import { emptyAnswerProblem, loadProblem, readinessNote, waitForProject } from "./readiness.ts";
import { coverageDetails, coverageForQuestion, coverageNote } from "./coverage.ts";
import { compareText } from "../compare.ts";

const gotoKinds = {
  definition: { method: "textDocument/definition", noun: "definition" },
  declaration: { method: "textDocument/declaration", noun: "declaration" },
  type_definition: { method: "textDocument/typeDefinition", noun: "type definition" },
  implementation: { method: "textDocument/implementation", noun: "implementation" },
} as const;

const gotoSchema = positionSchema;

function gotoAction(name: keyof typeof gotoKinds): ActionDef {
  const { method, noun } = gotoKinds[name];
  return defineAction({
    name,
    summary: `Where the symbol at a position has its ${noun}.`,
    schema: gotoSchema,
    access: "read",
    run: (input, context) =>
      withDocument(context, input.file, (doc) =>
        orRefused(name, doc, async () => {
          if (!offers(doc.client, method)) return lacking(name, doc, method);
          const position = await resolvePosition(context, doc, input);
          // Implementations are searched for across the workspace; the rest follow imports.
          const scope = name === "implementation" ? "workspace" : "file";
          const waited = await waitForProject(context, doc.client, scope, doc.uri);
          // What the server said about loading, as of its answer.
          let problem = loadProblem(doc.client, scope, doc.uri);
          let ready = waited && problem === undefined;
          // Implementations are searched in the files the server sees: said when that is not all.
          const covering = scope === "workspace"
            ? (await coverageForQuestion(context, doc, position)).coverage
            : { partial: false };
          const raw = await ask<RawLocations>(context, doc.client, method, {
            textDocument: { uri: doc.uri },
            position: position.server,
          });
          const coverage = await covering;
          const locations = await toAgentLocations(
            context,
            rawLocations(raw),
            doc.encoding,
            MAX_WITH_CONTEXT,
          );
          const subject = subjectOf(position);
          if (locations.length === 0) {
            if (ready && scope === "file") {
              // Nothing found in a file with an import the server could not resolve: don't know.
              problem = await emptyAnswerProblem(context, doc.client, doc.uri);
              ready = problem === undefined;
            }
            return {
              text: `No ${noun} found for ${subject}.` +
                readinessNote(ready, doc.client, { scope, uri: doc.uri }, problem) +
                coverageNote(coverage),
              details: noLocations(coverage, ready, problem),
            };
          }
          const heading = `${capitalize(plural(locations.length, noun))} of ${subject}:`;
          const rendered = renderLocations(heading, locations);
          return {
            text: rendered.text + readinessNote(ready, doc.client, { scope, uri: doc.uri }) +
              coverageNote(coverage),
            details: { ...rendered.details, ...coverageDetails(coverage, ready, problem) },
          };
        })),
  });
}

/** definition, declaration, type_definition, implementation. */
export const gotoActions: ActionDef[] = (Object.keys(gotoKinds) as (keyof typeof gotoKinds)[])
  .map(gotoAction);

const referencesSchema = z.strictObject({
  ...positionFields,
  include_declaration: z.optional(z.boolean()),
}).check(z.refine(hasPosition, NEED_POSITION));

/** references: every use of the symbol at a position, the declaration too unless told not to. */
export const referencesAction: ActionDef = defineAction({
  name: "references",
  summary: "Every reference to the symbol at a position (include_declaration, default true).",
  schema: referencesSchema,
  access: "read",
  run: (input, context) =>
    withDocument(context, input.file, (doc) =>
      orRefused("references", doc, async () => {
        const method = "textDocument/references";
        if (!offers(doc.client, method)) return lacking("references", doc, method);
        const position = await resolvePosition(context, doc, input);
        const includeDeclaration = input.include_declaration ?? true;
        const waited = await waitForProject(context, doc.client, "workspace");
        let problem = loadProblem(doc.client, "workspace");
        let ready = waited && problem === undefined;
        // Before asking where it may first make the server see the whole project (coverage.ts);
        // while the server answers where it only judges.
        const { coverage: covering } = await coverageForQuestion(context, doc, position);
        const params = {
          textDocument: { uri: doc.uri },
          position: position.server,
          context: { includeDeclaration },
        };
        let raw = rawLocations(await ask<RawLocations>(context, doc.client, method, params));
        // A fresh server may not have indexed the other files yet: one declaration-only answer is
        // asked again once it reports the project loaded.
        if (raw.length <= 1 && doc.client.uptimeMs < 10_000) {
          await doc.client.waitReady(context.readyTimeoutMs, context.signal);
          raw = rawLocations(await ask<RawLocations>(context, doc.client, method, params));
        }
        const coverage = await covering;
        const locations = await toAgentLocations(
          context,
          sortLocations(raw),
          doc.encoding,
          MAX_WITH_CONTEXT,
        );
        const subject = subjectOf(position);
        if (locations.length === 0) {
          if (ready) {
            // None, from a file whose import the server could not resolve: don't know.
            problem = await emptyAnswerProblem(context, doc.client, doc.uri);
            ready = problem === undefined;
          }
          return {
            text: `No references found for ${subject}.` +
              readinessNote(ready, doc.client, undefined, problem) + coverageNote(coverage),
            details: noLocations(coverage, ready, problem),
          };
        }
        const files = new Set(locations.map((l) => l.file)).size;
        const heading = `${capitalize(plural(locations.length, "reference"))} to ${subject} in ${
          plural(files, "file")
        }${includeDeclaration ? " (declaration included)" : ""}:`;
        const rendered = renderLocations(heading, locations);
        return {
          text: rendered.text + readinessNote(ready, doc.client) + coverageNote(coverage),
          details: { ...rendered.details, ...coverageDetails(coverage, ready, problem) },
        };
      })),
});

function sortLocations<
  T extends { uri: string; range: { start: { line: number; character: number } } },
>(
  list: T[],
): T[] {
  return [...list].sort((a, b) =>
    compareText(a.uri, b.uri) || a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** How an answer names what was asked about: the word at the position, or the position. */
function subjectOf(position: { word?: string; label: string }): string {
  return position.word ? `\`${position.word}\` at ${position.label}` : position.label;
}

/** The details of an answer that found no location. */
function noLocations(
  coverage: Parameters<typeof coverageDetails>[0],
  ready: boolean,
  problem: string | undefined,
) {
  return {
    locations: [],
    total: 0,
    truncated: false,
    ...coverageDetails(coverage, ready, problem),
  };
}
