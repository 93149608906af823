// The README's Dialects table is run as written: every example request of every row is sent
// verbatim (an `id` added, as JSON lines needs) to `deno task start`, and as the `lsp` tool's
// arguments to `deno task start mcp` — the README's grant, a fresh HOME, through bash — against the real typescript-language-server on the typescript fixture, and
// each answer is checked to be about the place that row's schema means: the identifier at that
// (0- or 1-based) position, its declaration found by text match, the N-th occurrence, the files
// named. A row or an example this test cannot check fails it, so the table cannot drift.
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempWorkspace } from "../helpers/workspace.ts";
import { type Answer, CHECKOUT, ok, Reader } from "./reader.ts";

/** The file the README's oh-my-pi example asks about (as tests/integration/dialects_test.ts). */
const USES_TS = `import { formatPrice } from "./format.ts";
import { summary, total } from "./cart.ts";

export const a = total([]), b = total([]);
export const label = formatPrice(a + b) + summary([]);
`;

/** One example of the table: its row's dialect and the request as the README gives it. */
interface Example {
  dialect: string;
  request: Record<string, unknown>;
}

/** The Dialects table's examples, each JSON code span of the example column. */
async function readmeExamples(): Promise<Example[]> {
  const readme = await Deno.readTextFile(join(CHECKOUT, "README.md"));
  const section = readme.split("\n### Dialects")[1]?.split("\n## ")[0];
  assert.ok(section, "the README has a Dialects section");
  const rows = section.split("\n").filter((line) => line.startsWith("|")).slice(2);
  const examples: Example[] = [];
  for (const row of rows) {
    const cells = row.split("|").slice(1, -1).map((cell) => cell.trim());
    const spans = [...cells[3].matchAll(/`(\{.*?\})`/g)].map((m) => m[1]);
    assert.ok(spans.length > 0, `the ${cells[0]} row gives no example`);
    for (const span of spans) examples.push({ dialect: cells[0], request: JSON.parse(span) });
  }
  return examples;
}

interface Place {
  file: string;
  line: number;
  column: number;
}

/** The identifier at 1-based `line`:`column` of `text`. */
function wordAt(text: string, line: number, column: number): string {
  const content = text.split("\n")[line - 1] ?? "";
  const before = content.slice(0, column - 1).match(/\w*$/)![0];
  const after = content.slice(column - 1).match(/^\w*/)![0];
  return before + after;
}

/** Where `name` is declared in the workspace, by text match (1-based). */
async function declaration(ws: TempWorkspace, name: string): Promise<Place> {
  const pattern = new RegExp(`(?:interface|class|function|type|const|let) (${name})\\b`);
  for (const file of ["src/cart.ts", "src/format.ts", "src/models.ts", "src/index.ts"]) {
    const lines = (await ws.read(file)).split("\n");
    const line = lines.findIndex((l) => pattern.test(l));
    if (line !== -1) {
      const at = lines[line].match(pattern)!;
      return { file, line: line + 1, column: at.index! + at[0].length - name.length + 1 };
    }
  }
  throw new Error(`no declaration of ${name}`);
}

/** The 1-based place a request's position means under `dialect`'s schema. */
function meant(example: Example): { file: string; line: number; column: number; shift: number } {
  const r = example.request;
  const file = (r.file ?? r.filePath) as string;
  const zeroBased = example.dialect === "ExAthena";
  const shift = zeroBased ? 1 : 0;
  const column = (r.column ?? r.character) as number;
  return { file, line: (r.line as number) + shift, column: column + shift, shift };
}

/** Checks one answer against what the example's dialect means; unknown examples fail. */
async function check(ws: TempWorkspace, example: Example, answer: Answer | undefined) {
  const r = example.request;
  const action = (r.action ?? r.operation) as string;
  const details = ok(answer);
  if (action === "definition" || action === "goToDefinition") {
    const at = meant(example);
    const name = wordAt(await ws.read(at.file), at.line, at.column);
    assert.match(name, /^\w+$/, `${example.dialect}: no identifier at ${JSON.stringify(at)}`);
    const target = await declaration(ws, name);
    const [first] = details.locations as Place[];
    // Answered in the schema's own counting: 0-based back for a 0-based request.
    assert.deepEqual(
      [first?.file, first?.line, first?.column],
      [target.file, target.line - at.shift, target.column - at.shift],
      `${example.dialect} ${JSON.stringify(r)}: ${JSON.stringify(answer)}`,
    );
  } else if (action === "hover") {
    // oh-my-pi: symbol + occurrence N is the N-th match of symbol on that line.
    const lines = (await ws.read(r.file as string)).split("\n");
    const content = lines[(r.line as number) - 1];
    let index = -1;
    for (let n = 0; n < (r.occurrence as number); n++) {
      index = content.indexOf(r.symbol as string, index + 1);
    }
    assert.ok(index !== -1, `no occurrence ${r.occurrence} of ${r.symbol}`);
    const range = details.range as Place;
    assert.deepEqual([range.line, range.column], [r.line, index + 1], JSON.stringify(answer));
    assert.equal((details.reading as { timeout?: string }).timeout, "seconds");
  } else if (action === "workspaceSymbol") {
    // No query: the workspace's symbols, each where it is declared.
    const symbols = details.symbols as (Place & { name: string })[];
    assert.ok(symbols.length > 0 && symbols.length <= 200, JSON.stringify(answer));
    for (const name of ["total", "summary", "formatPrice", "Item"]) {
      const target = await declaration(ws, name);
      const found = symbols.find((s) => s.name === name);
      assert.deepEqual([found?.file, found?.line], [target.file, target.line], name);
    }
  } else if (action === "workspace-diagnostics") {
    const files = details.files as { file: string; status: string }[];
    assert.deepEqual(
      files.map((f) => [f.file, f.status]),
      (r.files as string[]).map((f) => [
        f,
        "ok",
      ]),
    );
  } else {
    assert.fail(`no check for the README's ${example.dialect} example ${JSON.stringify(r)}`);
  }
}

/** A workspace with the file the oh-my-pi example names, and a reader's machine. */
async function scene() {
  const reader = await Reader.create();
  const ws = await TempWorkspace.copy("typescript");
  await ws.write("src/uses.ts", USES_TS);
  const cleanup = async () => {
    await ws.remove();
    await reader.remove();
  };
  return { reader, ws, cleanup };
}

Deno.test("README, Dialects: each row's example requests, sent as written to deno task start, answer about the place that schema means", async () => {
  const examples = await readmeExamples();
  assert.deepEqual(
    [...new Set(examples.map((e) => e.dialect))],
    ["lspgate", "ExAthena", "Claude Code, OpenCode", "oh-my-pi", "devkit-pi"],
  );
  const { reader, ws, cleanup } = await scene();
  try {
    const requests = examples.map((e, i) => ({ id: i + 1, ...e.request }));
    const answers = await reader.jsonLines(
      `deno task start --root '${ws.root}'`,
      CHECKOUT,
      requests,
    );
    for (const [i, example] of examples.entries()) {
      await check(ws, example, answers.get(i + 1));
    }
  } finally {
    await cleanup();
  }
});

Deno.test("README, Dialects: the same examples as the lsp tool's arguments to deno task start mcp", async () => {
  const examples = await readmeExamples();
  const { reader, ws, cleanup } = await scene();
  const client = await reader.mcp(`deno task start mcp --root '${ws.root}'`, CHECKOUT);
  try {
    for (const [i, example] of examples.entries()) {
      const result = await client.callTool({ name: "lsp", arguments: example.request });
      const content = result.content as { text: string }[];
      const answer: Answer = {
        id: i + 1,
        ok: result.isError !== true,
        content,
        details: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
      await check(ws, example, answer);
    }
  } finally {
    await client.close();
    await cleanup();
  }
});
