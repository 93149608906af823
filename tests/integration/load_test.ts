// Load through the primary interface: 200 requests written at once to one JSON-lines program
// (`deno run -A mod.ts --root <tmp>`) over the deno fixture, on a cold deno lsp. Every answer must
// come back exactly once, succeed, and say what the same request says when asked alone.
// Nothing here is timed: the point is that concurrency changes no answer.
import assert from "node:assert/strict";
import { type Line, Program } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const MAIN = "src/main.ts";
const GREET = "src/greet.ts";
const REPORT = "src/report.ts";
const SHAPES = "src/shapes.ts";
const BURST = 200;

/** The distinct requests the burst cycles through: navigation, hover, references, symbols. */
async function distinctRequests(ws: TempWorkspace): Promise<Record<string, unknown>[]> {
  const at = async (file: string, context: string, name: string) => {
    const { line, column } = await ws.within(file, context, name);
    return { file, line, column };
  };
  return [
    { action: "definition", ...await at(MAIN, "message = greet(名前)", "greet") },
    { action: "definition", ...await at(MAIN, "new Circle(1)", "Circle") },
    { action: "definition", ...await at(REPORT, "${greet(title)}", "greet") },
    { action: "definition", ...await at(REPORT, "totalArea(shapes).toFixed", "totalArea") },
    { action: "hover", file: GREET, query: "greet" },
    { action: "hover", file: SHAPES, query: "Circle.area" },
    { action: "hover", ...await at(MAIN, 'report("shapes"', "report") },
    { action: "references", file: GREET, query: "greet" },
    { action: "references", file: SHAPES, query: "Shape" },
    { action: "references", file: REPORT, query: "totalArea", include_declaration: false },
    { action: "symbols", file: SHAPES },
    { action: "symbols", file: MAIN },
    { action: "symbols", file: "*", query: "greet" },
  ];
}

Deno.test("200 concurrent requests on one JSON-lines session each answer once, ok, and as when asked alone", async () => {
  const ws = await TempWorkspace.copy("deno");
  const program = new Program(["--root", ws.root]);
  let finished = false;
  try {
    const distinct = await distinctRequests(ws);
    const burst = Array.from({ length: BURST }, (_, i) => ({
      id: i + 1,
      ...distinct[i % distinct.length],
    }));
    // One write: all 200 lines reach lspgate before deno lsp has even started.
    await program.send(...burst);
    const answers = await program.read(BURST);

    const ids = answers.map((a) => a.id);
    assert.equal(new Set(ids).size, BURST, `duplicate ids: ${JSON.stringify(ids)}`);
    assert.deepEqual(
      [...ids].sort((a, b) => Number(a) - Number(b)),
      burst.map((r) => r.id),
    );
    const failed = answers.filter((a) => a.ok !== true);
    assert.deepEqual(failed, [], `${failed.length} of ${BURST} failed`);

    // The same requests, one at a time, on the now warm server.
    const alone: Line[] = [];
    for (const [index, request] of distinct.entries()) {
      await program.send({ id: `alone-${index}`, ...request });
      const [answer] = await program.read(1);
      assert.equal(answer.id, `alone-${index}`);
      assert.equal(answer.ok, true, JSON.stringify(answer));
      alone.push(answer);
    }
    // Each kind found something: an empty answer compared with an empty answer proves nothing.
    for (const [index, answer] of alone.entries()) {
      const details = answer.details as Record<string, unknown>;
      const found = details.locations ?? details.symbols ?? details.text;
      assert.ok(
        Array.isArray(found) ? found.length > 0 : typeof found === "string" && found.length > 0,
        `${JSON.stringify(distinct[index])} found nothing: ${JSON.stringify(details)}`,
      );
    }

    const byId = new Map(answers.map((a) => [a.id, a]));
    const mismatches: string[] = [];
    for (const request of burst) {
      const index = (request.id - 1) % distinct.length;
      const got = byId.get(request.id)!.details;
      const want = alone[index].details;
      try {
        assert.deepEqual(got, want);
      } catch {
        mismatches.push(
          `id ${request.id} ${JSON.stringify(distinct[index])}:\n  burst ${
            JSON.stringify(got)
          }\n  alone ${JSON.stringify(want)}`,
        );
      }
    }
    assert.deepEqual(mismatches, [], mismatches.slice(0, 5).join("\n"));

    const end = await program.finish();
    finished = true;
    assert.equal(end.code, 0, end.stderr);
    assert.deepEqual(end.rest, []);
  } finally {
    if (!finished) await program.kill();
    await ws.remove();
  }
});
