import type { Node, Tree } from "web-tree-sitter";
import { parse, SyntaxTimeout } from "./loader.ts";
import { isReserved } from "./keywords.ts";
import type { SyntaxLanguage } from "./languages.ts";

/** Node types that are names: identifiers of every kind, Ruby constants and variables, Bash words. */
const NAME_TYPE =
  /identifier$|^(constant|word|variable_name|instance_variable|class_variable|global_variable)$/;

/**
 * Whether `newName` can stand where the name at `offset` (UTF-16 offset of `text`) stands: the
 * name is replaced in the file and the file parsed again; the new name must come out as one
 * token of the same kind (an identifier stays an identifier, a Ruby constant a constant) and no
 * parse error may appear. Returns the problem in words, or undefined when there is none or the
 * position is not on a name (then the server decides).
 */
export async function renameProblem(
  language: SyntaxLanguage,
  text: string,
  offset: number,
  newName: string,
  deadline?: number,
): Promise<{ problem: string; line: string } | undefined> {
  const before = await parse(language, text, deadline);
  if (!before) throw new SyntaxTimeout("parse");
  let start: number, end: number, type: string, errorsBefore: number;
  try {
    const node = nameAt(before, offset);
    if (!node) return undefined;
    ({ startIndex: start, endIndex: end, type } = node);
    errorsBefore = countErrors(before, deadline ?? Infinity);
  } finally {
    before.delete();
  }
  const changed = text.slice(0, start) + newName + text.slice(end);
  const line = lineAround(changed, start, newName.length);
  // A property may be called by a reserved word (`o.delete`); a variable or a type may not.
  if (!/property_identifier$/.test(type) && isReserved(language, newName)) {
    return { problem: "is a reserved word", line };
  }
  const after = await parse(language, changed, deadline);
  if (!after) throw new SyntaxTimeout("parse");
  try {
    const node = after.rootNode.descendantForIndex(start, start + newName.length);
    if (!node || node.startIndex !== start || node.endIndex !== start + newName.length) {
      return { problem: "is not a single name", line };
    }
    if (node.type !== type) {
      const read = node.isNamed ? article(node.type) : "a keyword";
      return { problem: `would be read as ${read}, not ${article(type)},`, line };
    }
    if (countErrors(after, deadline ?? Infinity) > errorsBefore) {
      return { problem: "makes the file fail to parse", line };
    }
    return undefined;
  } finally {
    after.delete();
  }
}

function nameAt(tree: Tree, offset: number): Node | undefined {
  // The position may be on the name's first character or just after its last, as in editors.
  for (const at of [offset, offset - 1]) {
    if (at < 0) continue;
    const node = tree.rootNode.descendantForIndex(at, at);
    if (node && node.namedChildCount === 0 && NAME_TYPE.test(node.type)) return node;
  }
  return undefined;
}

function countErrors(tree: Tree, deadline: number): number {
  let count = 0;
  // Its own stack, not recursion: a pathological file nests deeper than the call stack goes.
  const stack: Node[] = [tree.rootNode];
  let steps = 0;
  while (stack.length) {
    if (++steps % 1024 === 0 && performance.now() > deadline) throw new SyntaxTimeout("errors");
    const node = stack.pop()!;
    if (node.isError || node.isMissing) count++;
    if (node.hasError) { for (const child of node.children) if (child) stack.push(child); }
  }
  return count;
}

function lineAround(text: string, start: number, length: number): string {
  const from = Math.max(text.lastIndexOf("\n", start - 1) + 1, 0);
  const newline = text.indexOf("\n", start + length);
  return text.slice(from, newline === -1 ? text.length : newline).replace(/\r$/, "").trim();
}

function article(type: string): string {
  const words = type.replaceAll("_", " ");
  return `${/^[aeiou]/.test(words) ? "an" : "a"} ${words}`;
}
