// What is wrong with a config, said as `file:line: key: problem`: JSONC parsed with its tree
// kept, zod's issues and unknown server ids turned into problems, each placed on its line.
import {
  findNodeAtLocation,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import type * as z from "./zod.ts";
import { LspGateError } from "./errors.ts";
import { depthPast } from "./jsonc.ts";
import type { ServerConfig } from "./config_schema.ts";

/** One thing wrong with a config: where (a key path), and what. */
export interface Problem {
  path: (string | number)[];
  message: string;
  /** Point at the key itself (an unknown or refused key), not its value. */
  key?: boolean;
}

/** A zod issue as problems (an unknown key each, pointing at the key). */
export function issueProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = issue.path.map((p) => typeof p === "symbol" ? String(p) : p);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: [...path, key], message: "unknown key", key: true }));
  }
  return [{ path, message: issue.message }];
}

/** The `servers` entries that are neither a shipped adapter nor a complete new server. */
export function unknownServers(
  servers: Record<string, ServerConfig>,
  known: readonly string[],
): Problem[] {
  const problems: Problem[] = [];
  for (const [id, entry] of Object.entries(servers)) {
    if (known.includes(id)) continue;
    if (entry.command && (entry.extensions || entry.filenames)) continue;
    problems.push({ path: ["servers", id], message: unknownIdMessage(id, known, true), key: true });
  }
  return problems;
}

/** "unknown server; did you mean …? Known: …", with how to define one where `canDefine`. */
export function unknownIdMessage(id: string, known: readonly string[], canDefine: boolean): string {
  const near = nearest(id, known);
  return `unknown server` + (near ? `; did you mean "${near}"?` : ".") +
    (canDefine
      ? ` A new server needs "command" and "extensions" (or "filenames"). Known: ${
        known.join(", ")
      }.`
      : ` Known: ${known.join(", ")}.`);
}

/** The known id closest to `id` by edit distance, when close enough to be a typo. */
function nearest(id: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(id.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(id.length / 2)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/** Parses JSONC (comments, trailing commas); a syntax error is INVALID_INPUT at `file:line:column`. */
export function parseJsonc(text: string, file: string): { tree: Node | undefined; json: unknown } {
  // The parser, and every reading of the tree after it, recurse once a level: a repository's
  // config 5,000 levels deep overflowed the stack, and lspgate exited before serving anything.
  const deep = depthPast(text, MAX_DEPTH);
  if (deep !== undefined) {
    const { line, column } = lineColumn(text, deep);
    throw new LspGateError(
      "INVALID_INPUT",
      `config ${file}:${line}:${column}: nested deeper than ${MAX_DEPTH} levels`,
      { file, line },
    );
  }
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  let json: unknown;
  try {
    tree = parseTree(text, errors, { allowTrailingComma: true });
    json = tree ? getNodeValue(tree) : undefined;
  } catch (error) {
    // A nest the count above missed: refused like any bad config, never a crash.
    if (!(error instanceof RangeError)) throw error;
    throw new LspGateError("INVALID_INPUT", `config ${file}: nested too deeply to read`, { file });
  }
  if (errors.length) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    throw new LspGateError(
      "INVALID_INPUT",
      `config ${file}:${line}:${column}: ${printParseErrorCode(first.error)}`,
      { file, line },
    );
  }
  return { tree, json };
}

/** The deepest nesting a config may have; real ones stay under ten. */
const MAX_DEPTH = 64;

/** The INVALID_INPUT error listing every problem as `file:line: key: message`, by line. */
export function configError(
  file: string,
  text: string,
  tree: Node | undefined,
  problems: Problem[],
): LspGateError {
  const lines = problems.map((problem) => {
    const line = problemLine(text, tree, problem);
    const key = problem.path.join(".") || "(top level)";
    return { line, text: `${file}:${line}: ${key}: ${problem.message}` };
  }).sort((a, b) => a.line - b.line);
  const head = lines.length === 1 ? "config " : `config has ${lines.length} problems:\n`;
  return new LspGateError("INVALID_INPUT", head + lines.map((l) => l.text).join("\n"), {
    file,
    problems: lines.map((l) => l.text),
  });
}

/** The 1-based line of the key (or value) a problem is about, or of its nearest present parent. */
function problemLine(text: string, tree: Node | undefined, problem: Problem): number {
  if (!tree) return 1;
  for (let path = problem.path; path.length >= 0; path = path.slice(0, -1)) {
    const node = findNodeAtLocation(tree, path);
    if (node) {
      // A property's value node has the property as parent, whose first child is the key.
      const at = problem.key && path.length === problem.path.length &&
          node.parent?.type === "property"
        ? node.parent.children![0]
        : node;
      return lineColumn(text, at.offset).line;
    }
    if (path.length === 0) break;
  }
  return 1;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
