import assert from "node:assert/strict";
import { bashAdapter } from "../../adapters/bash.ts";
import { pyrightAdapter } from "../../adapters/pyright.ts";
import { inOrder, wordsIn } from "./symbol_prefilter.ts";

Deno.test("inOrder() wants the query's characters in order, gaps allowed", () => {
  assert.equal(inOrder("json_loads", "json_loads"), true);
  assert.equal(inOrder("jsld", "json_loads"), true);
  assert.equal(inOrder("sdaol", "json_loads"), false);
  assert.equal(inOrder("json_loadsx", "json_loads"), false);
});

Deno.test("wordsIn() splits Python text at blanks and ASCII punctuation but `_`, lower case", () => {
  const words = wordsIn(
    "def Setup_Docs(app): return café.X1[k]\n",
    pyrightAdapter.symbolIndex!.word,
  );
  assert.deepEqual(words, ["def", "setup_docs", "app", "return", "café", "x1", "k"]);
});

Deno.test("wordsIn() keeps a shell word whole, an escaped blank inside it", () => {
  const text = 'odd\\ name() { echo "$1"|tr a b; }\nX=1\n';
  const words = wordsIn(text, bashAdapter.symbolIndex!.word);
  assert.deepEqual(words, ["odd\\ name", "{", "echo", '"$1"', "tr", "a", "b", "}", "x=1"]);
  // A query that spans the escaped blank is still found in that word.
  assert.equal(words.some((w) => inOrder("oddname", w)), true);
});
