import assert from "node:assert/strict";
import { bareSymbolName, type FlatSymbol, matchQuery, qualifiedName } from "./symbol_tree.ts";

const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };

/** Symbols by dotted name, in document order. */
function symbols(...names: string[]): FlatSymbol[] {
  return names.map((dotted) => {
    const parts = dotted.split(".");
    const container = parts.slice(0, -1).join(".") || undefined;
    return {
      name: parts[parts.length - 1],
      kind: 6,
      uri: "file:///a.ts",
      range,
      selection: range,
      container,
      depth: parts.length - 1,
    };
  });
}

const SHAPES = symbols("Base", "Base.area", "Circle", "Circle.area", "total", "Outer.Base.area");

const CASES: { query: string; matches: string[]; nearest?: string[] }[] = [
  { query: "Circle.area", matches: ["Circle.area"] },
  { query: "area", matches: ["Base.area", "Circle.area", "Outer.Base.area"] },
  // A dotted query that spells a whole path names that one; a suffix names every one it ends.
  { query: "Base.area", matches: ["Base.area"] },
  { query: "Outer.Base.area", matches: ["Outer.Base.area"] },
  // A container that does not exist matches nothing, and the same name elsewhere is nearest.
  { query: "Nope.area", matches: [], nearest: ["Base.area", "Circle.area", "Outer.Base.area"] },
  { query: "Circle.total", matches: [], nearest: ["total"] },
  { query: "are", matches: [], nearest: ["Base.area", "Circle.area", "Outer.Base.area"] },
  { query: "zzz", matches: [], nearest: [] },
];

for (const { query, matches, nearest = [] } of CASES) {
  Deno.test(`matchQuery() for ${query} names ${matches.join(", ") || "nothing"}`, () => {
    const found = matchQuery(SHAPES, query);
    assert.deepEqual(found.matches.map(qualifiedName), matches);
    assert.deepEqual(found.nearest.map(qualifiedName), nearest);
  });
}

Deno.test("matchQuery() counts entries of one qualified name once; `g(int)` and `g(string)` are two", () => {
  const overloads = symbols("f", "f", "C.g(int)", "C.g(string)");
  assert.deepEqual(matchQuery(overloads, "f").matches.map(qualifiedName), ["f"]);
  assert.deepEqual(matchQuery(overloads, "C.g").matches.map(qualifiedName), [
    "C.g(int)",
    "C.g(string)",
  ]);
});

Deno.test("matchQuery() reads rust-analyzer's impl containers and clangd's Class::member names", () => {
  const rust = symbols(
    "Dog",
    "impl Dog.new",
    "impl Speak for Dog.speak",
    "impl<T> Speak for Cage<T>.speak",
  );
  assert.deepEqual(matchQuery(rust, "Dog.new").matches.map(qualifiedName), ["impl Dog.new"]);
  assert.deepEqual(matchQuery(rust, "Dog.speak").matches.map(qualifiedName), [
    "impl Speak for Dog.speak",
  ]);
  assert.deepEqual(matchQuery(rust, "speak").matches.length, 2);
  assert.deepEqual(matchQuery(rust, "Cat.speak").matches, []);
  const cpp = [...symbols("Shape"), ...symbols("Shape::area", "Circle::area")];
  assert.deepEqual(matchQuery(cpp, "Circle.area").matches.map((s) => s.name), ["Circle::area"]);
  assert.deepEqual(matchQuery(cpp, "area").matches.length, 2);
});

Deno.test("matchQuery() reads gopls's (*T).M and (T).M method names as M in T", () => {
  // Top-level symbols, as gopls lists them (the helper would split at the dot).
  const go = ["Greeter", "(*Greeter).Hello", "(Greeter).Bye", "(*List[T]).Push", "Hello"].map(
    (name) => ({ ...symbols("x")[0], name }),
  );
  assert.deepEqual(matchQuery(go, "Greeter.Hello").matches.map((s) => s.name), [
    "(*Greeter).Hello",
  ]);
  assert.deepEqual(matchQuery(go, "(*Greeter).Hello").matches.map((s) => s.name), [
    "(*Greeter).Hello",
  ]);
  assert.deepEqual(matchQuery(go, "(Greeter).Bye").matches.map((s) => s.name), ["(Greeter).Bye"]);
  assert.deepEqual(matchQuery(go, "Bye").matches.map((s) => s.name), ["(Greeter).Bye"]);
  assert.deepEqual(matchQuery(go, "List.Push").matches.map((s) => s.name), ["(*List[T]).Push"]);
  assert.deepEqual(matchQuery(go, "Hello").matches.map((s) => s.name), [
    "(*Greeter).Hello",
    "Hello",
  ]);
  assert.deepEqual(matchQuery(go, "Nope.Hello").matches, []);
  assert.equal(bareSymbolName(go[1]), "Hello");
});
