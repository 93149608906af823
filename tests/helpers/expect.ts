import assert from "node:assert/strict";
import { type Location, sorted, type Success } from "./session.ts";

/** A symbol as `details.symbols[]` gives it. */
export interface SymbolView {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  container?: string;
  detail?: string;
}

/** A caller or callee as `details.calls[]` gives it. */
export interface CallView {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
  detail?: string;
  callSites?: { line: number; column: number }[];
}

/**
 * Asserts that `symbols` holds exactly one symbol named `want.name` in `want.container`, at the
 * start of `want`'s span, of `want.kind`.
 */
export function expectSymbol(
  symbols: SymbolView[],
  want: {
    name: string;
    kind: string;
    container?: string;
    file: string;
    line: number;
    column: number;
  },
): void {
  const found = symbols.filter((s) => s.name === want.name && s.container === want.container);
  assert.equal(
    found.length,
    1,
    `one ${want.container ? `${want.container}.` : ""}${want.name} expected in ` +
      JSON.stringify(symbols.map((s) => `${s.container ?? ""}/${s.name}`)),
  );
  const [symbol] = found;
  assert.deepEqual(
    { kind: symbol.kind, file: symbol.file, line: symbol.line, column: symbol.column },
    { kind: want.kind, file: want.file, line: want.line, column: want.column },
    `${want.container ?? ""}.${want.name}`,
  );
}

/** `details.item` of a call hierarchy answer, without the server's free-form `detail`. */
export function itemOf(answer: Success): Omit<CallView, "detail" | "callSites"> {
  const item = answer.details.item as CallView | null;
  assert.ok(item, `no item in ${JSON.stringify(answer.details)}`);
  const { detail: _detail, ...rest } = item;
  return rest;
}

/**
 * `details[key]` of a call hierarchy answer, sorted by name then place, without the server's
 * free-form `detail` and with duplicate call sites collapsed (tsserver reports some twice).
 */
export function callsOf(answer: Success, key: "calls" | "incoming" | "outgoing"): CallView[] {
  const calls = answer.details[key] as CallView[] | undefined;
  assert.ok(Array.isArray(calls), `no details.${key} in ${JSON.stringify(answer.details)}`);
  return calls.map(({ detail: _detail, ...call }) => {
    if (!call.callSites) return call;
    const seen = new Set<string>();
    const callSites = call.callSites.filter((s) => {
      const key = `${s.line}:${s.column}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return { ...call, callSites };
  }).sort((a, b) =>
    a.name.localeCompare(b.name) || a.file.localeCompare(b.file) || a.line - b.line
  );
}

/** `details.changes` with files in name order and edits in position order, for comparing. */
export function sortedChanges(changes: unknown): unknown {
  assert.ok(Array.isArray(changes), `no details.changes: ${JSON.stringify(changes)}`);
  return [...changes as { file: string; edits: { line: number; column: number }[] }[]]
    .map((c) => ({
      ...c,
      edits: [...c.edits].sort((a, b) => a.line - b.line || a.column - b.column),
    }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** `text` with `insert` put right before the first `needle`. */
export function insertBefore(text: string, needle: string, insert: string): string {
  const index = text.indexOf(needle);
  if (index === -1) throw new Error(`insertBefore(): ${JSON.stringify(needle)} not found`);
  return text.slice(0, index) + insert + text.slice(index);
}

/** A location's start with its file, as hierarchy items give it. */
export function at(location: Location): { file: string; line: number; column: number } {
  return { file: location.file, line: location.line, column: location.column };
}

/** A location's start without the file, as call sites and diagnostics give it. */
export function pos(location: Location): { line: number; column: number } {
  return { line: location.line, column: location.column };
}

/** The listed keys of an object, for comparing part of an answer. */
export function pick(value: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, value[k]]));
}

/** The `details.changes` (as sortedChanges() orders them) for renaming `locations` to `newText`. */
export function changesFor(locations: Location[], newText: string): unknown {
  const byFile = new Map<string, Record<string, unknown>[]>();
  for (const l of sorted(locations)) {
    const edits = byFile.get(l.file) ?? [];
    edits.push({
      line: l.line,
      column: l.column,
      endLine: l.endLine,
      endColumn: l.endColumn,
      newText,
    });
    byFile.set(l.file, edits);
  }
  return [...byFile].map(([file, edits]) => ({ file, edits }));
}

/** Asserts a diagnostics answer checked every file (status ok) and found nothing. */
export function assertAllClean(answer: Success): void {
  const files = answer.details.files as { file: string; status: string; diagnostics: unknown[] }[];
  assert.ok(files.length > 0, "no file was checked");
  assert.deepEqual(
    files.filter((f) => f.status !== "ok" || f.diagnostics.length > 0),
    [],
    answer.content[0].text,
  );
}
