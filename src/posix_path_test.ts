// posix_path.ts gives what node:path's posix functions give, path for path: every sequence of up
// to three awkward segments, joined with and without slashes, and pairs of them.
import assert from "node:assert/strict";
import { posix as node } from "node:path";
import * as ours from "./posix_path.ts";

const SEGMENTS = ["", "/", "//", ".", "..", "a", "b.c", ".d", "e.", "..f", "g/", "é 😀"];

function paths(): string[] {
  const found = new Set<string>();
  let level = [""];
  for (let length = 1; length <= 3; length++) {
    const next: string[] = [];
    for (const start of level) {
      for (const segment of SEGMENTS) {
        next.push(`${start}/${segment}`, start + segment);
        if (start === "") next.push(segment);
      }
    }
    for (const path of next) found.add(path);
    level = [...new Set(next)];
  }
  return [...found];
}

Deno.test("posix paths: each function of one path gives node:path's result", () => {
  const all = paths();
  assert.ok(all.length > 8_000, `${all.length} paths`);
  for (const path of all) {
    for (const name of ["normalize", "dirname", "basename", "extname", "isAbsolute"] as const) {
      assert.equal(ours[name](path), node[name](path), `${name}(${JSON.stringify(path)})`);
    }
    assert.equal(ours.resolve(path), node.resolve(path), `resolve(${JSON.stringify(path)})`);
    assert.equal(ours.join(path), node.join(path), `join(${JSON.stringify(path)})`);
  }
  assert.equal(ours.join(), node.join());
  assert.equal(ours.resolve(), node.resolve());
});

Deno.test("posix paths: join, resolve and relative of two paths give node:path's result", () => {
  const some = paths().filter((_, i) => i % 19 === 0);
  assert.ok(some.length > 400, `${some.length} paths`);
  for (const a of some) {
    for (const b of some) {
      const at = JSON.stringify([a, b]);
      assert.equal(ours.join(a, b), node.join(a, b), `join${at}`);
      assert.equal(ours.resolve(a, b), node.resolve(a, b), `resolve${at}`);
      assert.equal(ours.relative(a, b), node.relative(a, b), `relative${at}`);
    }
  }
  // Read out, so the comparison is seen to compare something.
  assert.equal(ours.relative("/a/b/c", "/a/d"), "../../d");
  assert.equal(ours.dirname("//x"), "//");
  assert.equal(ours.normalize("a/../"), "./");
});
