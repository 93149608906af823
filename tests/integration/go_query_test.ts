// A `query` reaches a Go method (a prober's find): gopls names methods by their receiver,
// `(*Greeter).Hello`, which lspgate cut to "" and so `Hello`, `Greeter.Hello` and even
// `(*Greeter).Hello` were SYMBOL_NOT_FOUND on every path that asks gopls (bare names, writes).
// Real gopls.
import assert from "node:assert/strict";
import { hostileRepo, runLspgate } from "../security/hostile.ts";

Deno.test("gopls: query Hello, Greeter.Hello and (*Greeter).Hello name the method, for reads and renames", async () => {
  const repo = await hostileRepo({
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "g.go": "package m\n\ntype Greeter struct{}\n\n" +
      'func (g *Greeter) Hello() string { return "hi" }\n\n' +
      'func (g Greeter) Bye() string { return "bye" }\n\n' +
      "func Use() string { var g Greeter; return g.Hello() + g.Bye() }\n",
  });
  try {
    const run = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "g.go", query: "Hello" },
      { id: 2, action: "rename", file: "g.go", query: "Greeter.Hello", new_name: "Hi" },
      { id: 3, action: "rename", file: "g.go", query: "(*Greeter).Hello", new_name: "Hi" },
      { id: 4, action: "references", file: "g.go", query: "Bye" },
      { id: 5, action: "rename", file: "g.go", query: "(Greeter).Bye", new_name: "Ciao" },
    ]);
    type Answer = {
      ok: boolean;
      details: {
        locations?: { line: number; column: number }[];
        changes?: { file: string; edits: { line: number; column: number; newText: string }[] }[];
      };
    };
    const answers = run.lines as Answer[];
    for (const answer of answers) assert.equal(answer.ok, true, JSON.stringify(answer));
    const places = (a: Answer) =>
      a.details.locations?.map((l) => `${l.line}:${l.column}`) ??
        a.details.changes?.flatMap((c) =>
          c.edits.map((e) => `${c.file}:${e.line}:${e.column}:${e.newText}`)
        );
    assert.deepEqual(places(answers[0]), ["5:19", "9:45"]);
    assert.deepEqual(places(answers[1]), ["g.go:5:19:Hi", "g.go:9:45:Hi"]);
    assert.deepEqual(places(answers[2]), ["g.go:5:19:Hi", "g.go:9:45:Hi"]);
    assert.deepEqual(places(answers[3]), ["7:18", "9:57"]);
    assert.deepEqual(places(answers[4]), ["g.go:7:18:Ciao", "g.go:9:57:Ciao"]);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
