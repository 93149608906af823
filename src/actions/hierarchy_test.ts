import assert from "node:assert/strict";
import type * as proto from "vscode-languageserver-protocol";
import { foldOverloads, mergeCalls } from "./hierarchy.ts";

const range = (line: number, character: number, length = 3): proto.Range => ({
  start: { line, character },
  end: { line, character: character + length },
});

const item = (name: string, line: number, uri = "file:///w/a.c"): proto.CallHierarchyItem => ({
  name,
  kind: 12,
  uri,
  range: range(line, 0, 20),
  selectionRange: range(line, 4),
});

Deno.test("mergeCalls() lists each call site once and each callee once (clangd's doubled sites)", () => {
  const merged = mergeCalls([
    { item: item("add", 1), ranges: [range(7, 9), range(7, 9)] },
    { item: item("add", 1), ranges: [range(7, 9), range(8, 2)] },
    { item: item("sub", 3), ranges: [range(9, 2)] },
  ]);
  assert.deepEqual(merged.map((c) => [c.item.name, c.ranges.map((r) => r.start.line)]), [
    ["add", [7, 8]],
    ["sub", [9]],
  ]);
});

Deno.test("foldOverloads() lists one call resolved to several overloads once", () => {
  const sites = [range(1, 11), range(1, 40)];
  const folded = foldOverloads([
    { item: item("getattr", 1779, "file:///t/builtins.pyi"), ranges: sites },
    { item: item("getattr", 1785, "file:///t/builtins.pyi"), ranges: sites },
    { item: item("str", 487, "file:///t/builtins.pyi"), ranges: [range(1, 36)] },
    // Another function of that name called elsewhere stays.
    { item: item("getattr", 10, "file:///w/mine.py"), ranges: sites },
  ]);
  assert.deepEqual(folded.map((c) => [c.item.name, c.item.selectionRange.start.line]), [
    ["getattr", 1779],
    ["str", 487],
    ["getattr", 10],
  ]);
});
