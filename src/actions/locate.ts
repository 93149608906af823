import type * as proto from "vscode-languageserver-protocol";
import { fromServerRange, type PositionEncoding } from "../lsp/positions.ts";
import type { TextLines } from "../lsp/text_lines.ts";
import { fromFileUrl } from "../servers/uri.ts";
import type { LocationView } from "../format/locations.ts";
import type { ActionContext } from "./types.ts";
import { TextCache } from "./text_cache.ts";

/** A location as agents read it: 1-based code points, `file` workspace-relative when inside. */
export type AgentLocation = LocationView;

/**
 * Reads files for locations once per answer, through the workspace boundary (and the text cache
 * shared across answers, which keeps a file until it changes).
 */
export class FileCache {
  #files = new Map<string, Promise<TextLines | undefined>>();
  #names = new Map<string, string>();
  constructor(private readonly context: ActionContext) {}

  /** How a server-given URI is named to the agent: workspace-relative when inside, else as given. */
  nameOf(uri: string): string {
    let name = this.#names.get(uri);
    if (name === undefined) {
      const path = fromFileUrl(uri);
      name = path ? this.context.workspace.relative(path) : uri;
      this.#names.set(uri, name);
    }
    return name;
  }

  /** The lines of a server-given URI, or undefined when it is outside the readable roots. */
  linesOf(uri: string): Promise<TextLines | undefined> {
    let cached = this.#files.get(uri);
    if (!cached) {
      cached = this.#read(uri);
      this.#files.set(uri, cached);
    }
    return cached;
  }

  #read(uri: string): Promise<TextLines | undefined> {
    // Outside the workspace (a library, a deleted file): undefined, listed without context.
    return TextCache.of(this.context).linesOf(uri);
  }
}

/** Any of the shapes servers give for "where": Location, Location[], LocationLink[], null. */
export type RawLocations =
  | proto.Location
  | (proto.Location | proto.LocationLink)[]
  | null
  | undefined;

/** Normalises a server's locations into URI + range pairs. */
export function rawLocations(raw: RawLocations): { uri: string; range: proto.Range }[] {
  if (!raw) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  const out: { uri: string; range: proto.Range }[] = [];
  for (const item of list) {
    if (!item || typeof item !== "object") continue;
    if ("targetUri" in item && typeof item.targetUri === "string") {
      out.push({ uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange });
    } else if ("uri" in item && typeof item.uri === "string" && item.range) {
      out.push({ uri: item.uri, range: item.range });
    }
  }
  return out.filter((l) => l.range?.start && l.range?.end);
}

/** Converts one server location to the agent's view, with `contextLines` lines of source. */
export async function toAgentLocation(
  files: FileCache,
  location: { uri: string; range: proto.Range },
  encoding: PositionEncoding,
  withContext: boolean,
): Promise<AgentLocation> {
  const lines = await files.linesOf(location.uri);
  // Once per file of an answer, not per location (references name a file many times).
  const file = files.nameOf(location.uri);
  if (!lines) {
    const { start, end } = location.range;
    return {
      file,
      line: start.line + 1,
      column: start.character + 1,
      endLine: end.line + 1,
      endColumn: end.character + 1,
      approximate: encoding !== "utf-32",
    };
  }
  const range = fromServerRange(lines, location.range, encoding);
  const result: AgentLocation = { file, ...range };
  if (withContext) {
    result.context = [];
    for (let line = range.line - 1; line <= range.line + 1; line++) {
      if (line < 1 || line > lines.lineCount) continue;
      result.context.push({ line, text: clip(lines.line(line - 1)) });
    }
  }
  return result;
}

/** Converts, de-duplicates and sorts a server's locations; context for the first `withContext`. */
export async function toAgentLocations(
  context: ActionContext,
  raw: { uri: string; range: proto.Range }[],
  encoding: PositionEncoding,
  withContext: number,
): Promise<AgentLocation[]> {
  const files = new FileCache(context);
  const seen = new Set<string>();
  const unique = raw.filter((l) => {
    const key = `${l.uri}:${l.range.start.line}:${l.range.start.character}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const converted = await Promise.all(
    unique.map((l, i) => toAgentLocation(files, l, encoding, i < withContext)),
  );
  return converted;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
