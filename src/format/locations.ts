import { boundList, MAX_WITH_CONTEXT, plural } from "./bound.ts";

/** A location as the format layer needs it (see actions/locate.ts). */
export interface LocationView {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  context?: { line: number; text: string }[];
  approximate?: boolean;
}

/** `path:line:column`, then the source lines around it with the target line marked. */
export function renderLocation(location: LocationView): string {
  const head = `${location.file}:${location.line}:${location.column}` +
    (location.approximate ? " (column approximate: file outside the workspace)" : "");
  if (!location.context?.length) return head;
  const width = String(location.context[location.context.length - 1].line).length;
  const body = location.context.map((c) =>
    `${String(c.line).padStart(width)}${c.line === location.line ? ">" : " "} ${c.text}`
  );
  return [head, ...body].join("\n");
}

/**
 * A list of locations for the model: a heading, the first MAX_WITH_CONTEXT with source, the
 * rest by position, at most MAX_ITEMS, saying what was cut.
 */
export function renderLocations(heading: string, locations: LocationView[]): {
  text: string;
  details: { locations: LocationView[]; total: number; truncated: boolean };
} {
  const bounded = boundList(locations);
  const parts = [heading];
  bounded.items.forEach((location, index) => {
    parts.push(
      index < MAX_WITH_CONTEXT ? renderLocation(location) : renderLocation({
        ...location,
        context: undefined,
      }),
    );
  });
  if (bounded.truncated) {
    parts.push(
      `… ${plural(bounded.total - bounded.items.length, "more location")} not shown ` +
        `(${bounded.items.length} of ${bounded.total} listed).`,
    );
  }
  return {
    text: parts.join("\n\n"),
    details: {
      locations: bounded.items.map(({ context: _context, ...rest }) => rest),
      total: bounded.total,
      truncated: bounded.truncated,
    },
  };
}
