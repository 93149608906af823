import assert from "node:assert/strict";
import { answerIn, readDialect } from "./dialects.ts";

Deno.test("readDialect() reads ExAthena's action + file + line + character as 0-based", () => {
  const { request, reading } = readDialect({
    action: "hover",
    file: "a.ts",
    line: 0,
    character: 4,
  });
  assert.deepEqual(request, { action: "hover", file: "a.ts", line: 1, column: 5 });
  assert.equal(reading.dialect, "exathena");
  assert.equal(reading.zeroBased, true);
});

Deno.test("readDialect() keeps Claude Code's and OpenCode's operation + filePath + character 1-based", () => {
  const { request, reading } = readDialect({
    operation: "hover",
    filePath: "a.ts",
    line: 1,
    character: 4,
  });
  assert.deepEqual(request, { action: "hover", file: "a.ts", line: 1, column: 4 });
  assert.equal(reading.zeroBased, false);
});

Deno.test("readDialect() reads timeout up to 60 as oh-my-pi's seconds, clamped, and timeout_ms as ms", () => {
  assert.equal(readDialect({ action: "hover", timeout: 5 }).request.timeout, 5000);
  assert.equal(readDialect({ action: "hover", timeout: 1 }).request.timeout, 5000);
  assert.equal(readDialect({ action: "hover", timeout: 30_000 }).request.timeout, 30_000);
  assert.equal(readDialect({ action: "hover", timeout_ms: 1 }).request.timeout, 1);
  // An oh-my-pi request by its other fields: seconds, clamped to 60.
  const omp = readDialect({ action: "hover", symbol: "x", occurrence: 1, timeout: 120 });
  assert.equal(omp.request.timeout, 60_000);
  assert.equal(omp.request.symbol, "x#1");
});

Deno.test("readDialect() makes diagnostics and symbols without file workspace-wide", () => {
  assert.equal(readDialect({ action: "diagnostics" }).request.file, "*");
  assert.equal(readDialect({ action: "symbols", query: "x" }).request.file, "*");
  assert.deepEqual(readDialect({ action: "workspace-diagnostics", files: ["a.ts"] }).request, {
    action: "diagnostics",
    files: ["a.ts"],
  });
});

Deno.test("answerIn() gives a 0-based reading 0-based positions in details and text", () => {
  const { reading } = readDialect({ action: "definition", file: "a.ts", line: 2, character: 3 });
  const answer = answerIn({
    text: "Definition of `x` at a.ts:3:4:\n\nsrc/b.ts:10:2\n 9  before\n10> target\n11  after",
    details: { locations: [{ file: "src/b.ts", line: 10, column: 2, endLine: 10, endColumn: 3 }] },
  }, reading);
  assert.deepEqual(answer.details.locations, [
    { file: "src/b.ts", line: 9, column: 1, endLine: 9, endColumn: 2 },
  ]);
  assert.ok(
    answer.text.startsWith(
      "Definition of `x` at a.ts:2:3:\n\nsrc/b.ts:9:1\n 8  before\n 9> target\n10  after",
    ),
    answer.text,
  );
});

Deno.test("readDialect() previews an oh-my-pi rename without apply and says so", () => {
  const { request, reading } = readDialect({
    action: "rename",
    file: "a.ts",
    line: 1,
    symbol: "x",
    occurrence: 1,
    new_name: "y",
  });
  assert.equal(request.apply, undefined);
  assert.equal(reading.dialect, "oh-my-pi");
  assert.match(reading.said.join(" "), /Previewed, not applied/);
});
