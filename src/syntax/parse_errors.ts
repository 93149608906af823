import type { Node, Tree } from "web-tree-sitter";
import { SyntaxTimeout } from "./loader.ts";

/** A parse error: where (UTF-16 offsets of the text, end exclusive) and what. */
export interface ParseError {
  start: number;
  end: number;
  message: string;
}

const MAX_ERRORS = 100;
const MAX_SNIPPET = 40;

/**
 * The parse errors of a tree, in document order: each MISSING node (a token the parser had to
 * invent to go on, such as a closing bracket) and each ERROR node (text the parser could not
 * fit). An ERROR that holds smaller errors is reported through them, where the parser lost
 * track; one that does not is reported from its first part that is not a whole, sound
 * definition (a function that parsed before the broken one is not the error).
 */
export function parseErrors(tree: Tree, deadline = Infinity): ParseError[] {
  const errors: ParseError[] = [];
  // A walk with its own stack, not recursion: a file of 1 MB of `[` nests a million deep.
  const stack: Node[] = [tree.rootNode];
  let steps = 0;
  while (stack.length && errors.length < MAX_ERRORS) {
    if (++steps % 1024 === 0 && performance.now() > deadline) throw new SyntaxTimeout("errors");
    const node = stack.pop()!;
    if (node.isMissing) {
      errors.push({ start: node.startIndex, end: node.endIndex, message: missing(node) });
      continue;
    }
    const children = node.children.filter((child): child is Node => child !== null);
    if (node.isError && !children.some((child) => child.hasError || child.isMissing)) {
      const firstBad = children.findIndex((child) => !child.isNamed || child.hasError);
      const from = children[firstBad === -1 ? 0 : firstBad] ?? node;
      errors.push({
        start: from.startIndex,
        end: node.endIndex,
        message: unexpected(node, from.startIndex),
      });
      continue;
    }
    if (!node.hasError) continue;
    // Reversed onto the stack, so children are visited in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return errors;
}

function missing(node: Node): string {
  // A named node missing is a kind of thing ("identifier"); an anonymous one is a token (")").
  return node.isNamed ? `missing ${node.type.replaceAll("_", " ")}` : `missing \`${node.type}\``;
}

function unexpected(node: Node, from: number): string {
  const text = node.text.slice(from - node.startIndex).trim();
  if (text === "") return "syntax error here";
  const first = text.split(/\r?\n|\r/)[0];
  const chars = [...first];
  const snippet = chars.length > MAX_SNIPPET ? `${chars.slice(0, MAX_SNIPPET).join("")}…` : first;
  return `unexpected \`${snippet}${first !== text ? " …" : ""}\``;
}
