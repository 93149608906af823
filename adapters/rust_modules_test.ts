import assert from "node:assert/strict";
import { reachedFiles, tokenize } from "./rust_modules.ts";
import { crateRoots } from "./rust_coverage.ts";
import { LINUX } from "../tests/helpers/rust_target.ts";

const ROOT = "/p";

async function reach(tree: Record<string, string | undefined>, roots = ["src/lib.rs"]) {
  const files = Object.keys(tree).map((rel) => `${ROOT}/${rel}`).sort();
  const read = (path: string) =>
    Promise.resolve(path.startsWith(`${ROOT}/`) ? tree[path.slice(ROOT.length + 1)] : undefined);
  const found = await reachedFiles(roots.map((r) => `${ROOT}/${r}`), files, read, LINUX);
  assert.ok(found);
  const rel = (f: string) => f.slice(ROOT.length + 1);
  const { reached, inactive, uncertain } = found;
  return {
    unreached: files.filter((f) => !reached.has(f) && !inactive.has(f) && !uncertain.has(f))
      .map(rel),
    inactive: files.filter((f) => inactive.has(f)).map(rel),
    uncertain: files.filter((f) => uncertain.has(f)).map(rel),
  };
}

/** The files of `tree` (root-relative) that the crates rooted at `roots` do not reach. */
async function unreached(
  tree: Record<string, string | undefined>,
  roots = ["src/lib.rs"],
): Promise<string[]> {
  const { unreached, inactive, uncertain } = await reach(tree, roots);
  assert.deepEqual([...inactive, ...uncertain], []);
  return unreached;
}

Deno.test("reachedFiles() follows mod x; to x.rs and x/mod.rs, a non-mod-rs file's to its own folder", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": "mod a;\npub(crate) mod b;\n",
      "src/a.rs": "mod x;\n",
      "src/a/x.rs": "",
      "src/x.rs": "", // a.rs's `mod x;` is src/a/x.rs, not this
      "src/b/mod.rs": "pub mod c;\n",
      "src/b/c.rs": "mod d;\n",
      "src/b/c/d/mod.rs": "",
      "src/b/d.rs": "", // c.rs's `mod d;` is in src/b/c/
      "src/orphan.rs": "fn main() {}\n",
    }),
    ["src/b/d.rs", "src/orphan.rs", "src/x.rs"],
  );
});

Deno.test("reachedFiles() resolves #[path] from the declaring file's folder, and a file it reaches owns its folder", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": '#[path = "gen/out.rs"]\npub mod out;\nmod a;\n',
      "src/gen/out.rs": "mod inner;\n",
      "src/gen/inner.rs": "",
      "src/gen/out/inner.rs": "", // out.rs came by #[path]: its `mod inner;` is beside it
      "src/a.rs": '#[path = "../shared/util.rs"] mod util;\n',
      "shared/util.rs": "",
      "src/a/util.rs": "",
    }),
    ["src/a/util.rs", "src/gen/out/inner.rs"],
  );
});

Deno.test("reachedFiles() follows declarations inside inline mod blocks, #[path] inside them from the block's folder", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": "mod outer {\n    pub mod inner;\n    mod deeper { mod leaf; }\n" +
        '    #[path = "z.rs"]\n    mod zz;\n}\nmod a;\nfn f() {}\nmod after;\n',
      "src/outer/inner.rs": "",
      "src/outer/deeper/leaf.rs": "",
      "src/outer/z.rs": "",
      "src/a.rs": "mod m { mod n; }\n",
      "src/a/m/n.rs": "",
      "src/after.rs": "",
      "src/inner.rs": "",
      "src/m/n.rs": "",
    }),
    ["src/inner.rs", "src/m/n.rs"],
  );
});

Deno.test("reachedFiles() ignores mod in comments, strings, raw strings and after char literals", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": "// mod c1;\n/* mod c2; /* nested */ mod c3; */\n" +
        'const A: &str = "mod c4; \\" mod c5;";\nconst B: &str = r#"mod c6; "# ;\n' +
        "const Q: char = '\"';\nconst R: char = '\\'';\nfn f<'a>(x: &'a str) -> &'a str { x }\n" +
        "/// mod c7;\nmod real;\n",
      "src/c1.rs": "",
      "src/c2.rs": "",
      "src/c3.rs": "",
      "src/c4.rs": "",
      "src/c5.rs": "",
      "src/c6.rs": "",
      "src/c7.rs": "",
      "src/real.rs": "",
    }),
    ["src/c1.rs", "src/c2.rs", "src/c3.rs", "src/c4.rs", "src/c5.rs", "src/c6.rs", "src/c7.rs"],
  );
});

Deno.test("reachedFiles() takes a module's folder as reached where a macro's input holds a mod, and both files of a cfg_attr path", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": 'mod gen;\n#[cfg_attr(windows, path = "win.rs")]\nmod sys;\nmod plain;\n' +
        'compile_error!("a string with mod x; in it");\nmod after;\n',
      "src/gen.rs": "cfg_if::cfg_if! {\n    if #[cfg(unix)] { mod unix; } else { mod other; }\n}\n",
      "src/gen/unix.rs": "",
      "src/gen/deep/x.rs": "",
      "src/win.rs": "",
      "src/sys.rs": "",
      "src/plain.rs": "",
      "src/plain/x.rs": "", // plain.rs declares nothing: unreached
      "src/after.rs": "",
    }),
    ["src/plain/x.rs"],
  );
});

Deno.test("reachedFiles() takes every file as reached where a macro_rules! body holds a mod (it may be invoked anywhere)", async () => {
  // serde_core's crate_root! is defined in crate_root.rs and declares lib.rs's modules.
  const tree = {
    "src/lib.rs": "#[macro_use]\nmod crate_root;\ncrate_root!();\n",
    "src/crate_root.rs": "macro_rules! crate_root {\n    () => { pub mod de; mod private; };\n}\n",
    "src/de.rs": "",
    "src/private/mod.rs": "",
  };
  assert.deepEqual(await unreached(tree), []);
  tree["src/crate_root.rs"] = "macro_rules! crate_root {\n    () => { pub fn de() {} };\n}\n";
  assert.deepEqual(await unreached(tree), ["src/de.rs", "src/private/mod.rs"]);
});

Deno.test("reachedFiles() takes everything below a listed file it cannot read as reached", async () => {
  assert.deepEqual(
    await unreached({
      "src/lib.rs": "mod locked;\n",
      "src/locked.rs": undefined,
      "src/locked/x.rs": "",
      "src/y.rs": "",
    }),
    ["src/y.rs"],
  );
});

Deno.test("crateRoots() finds bins, tests, examples, benches, build.rs and Cargo.toml's paths", async () => {
  const files = [
    "src/main.rs",
    "src/bin/tool.rs",
    "src/bin/multi/main.rs",
    "src/bin/multi/helper.rs",
    "src/bin/deep/nested/x.rs",
    "tests/it.rs",
    "tests/common/mod.rs",
    "tests/suite/main.rs",
    "examples/demo.rs",
    "benches/speed.rs",
    "build.rs",
    "lib/mylib.rs",
    "tools/gen.rs",
    "old/skipped.rs",
    "src/orphan.rs",
  ].map((rel) => `${ROOT}/${rel}`);
  const manifest = '[package]\nname = "p"\n\n[lib]\npath = "lib/mylib.rs"\n\n' +
    "[[bin]]\nname = 'gen'\npath = 'tools/gen.rs'\n# path = \"old/skipped.rs\"\n";
  const roots = crateRoots(ROOT, files, manifest);
  assert.deepEqual(
    roots.map((f) => f.slice(ROOT.length + 1)).sort(),
    [
      "benches/speed.rs",
      "build.rs",
      "examples/demo.rs",
      "lib/mylib.rs",
      "src/bin/multi/main.rs",
      "src/bin/tool.rs",
      "src/main.rs",
      "tests/it.rs",
      "tests/suite/main.rs",
      "tools/gen.rs",
    ],
  );
  // tests/it.rs's `mod common;` reaches tests/common/mod.rs; a bin folder's main.rs its helpers.
  const tree: Record<string, string> = Object.fromEntries(
    files.map((f) => [f.slice(ROOT.length + 1), ""]),
  );
  tree["tests/it.rs"] = "mod common;\n";
  tree["src/bin/multi/main.rs"] = "mod helper;\n";
  assert.deepEqual(
    await unreached(tree, roots.map((f) => f.slice(ROOT.length + 1))),
    ["old/skipped.rs", "src/bin/deep/nested/x.rs", "src/orphan.rs"],
  );
});

Deno.test("tokenize() reads raw identifiers, byte strings and lifetimes", () => {
  const values = tokenize('mod r#type; b"mod x;" br##"a"#b"## \'life b\'\\\'\' 1.5e3 /**/ x')
    .map((t) => `${t.kind}:${t.value}`);
  assert.deepEqual(values, [
    "ident:mod",
    "ident:type",
    "punct:;",
    "str:mod x;",
    'str:a"#b',
    "other:'",
    "other:char",
    "other:0",
    "ident:x",
  ]);
});

Deno.test("reachedFiles() tells files declared only under a #[cfg] off for the target (or not known here), and what they declare", async () => {
  assert.deepEqual(
    await reach({
      "src/lib.rs": "#[cfg(windows)]\nmod win;\n#[cfg(unix)]\nmod nix;\n" +
        '#[cfg(feature = "x")]\nmod feat;\n#[cfg(all(windows, feature = "x"))]\nmod both;\n' +
        '#[cfg(any(windows, feature = "x"))]\nmod either;\n#[cfg(not(test))]\nmod nontest;\n' +
        '#[cfg(target_os = "macos")]\npub(crate) mod mac;\n#[cfg(windows)]\nmod w { mod x; }\n' +
        '#[cfg(windows)]\n#[path = "imp.rs"]\nmod imp;\n#[cfg(unix)]\n#[path = "imp.rs"]\nmod imp;\n',
      "src/win/mod.rs": "mod inner;\n",
      "src/win/inner.rs": "",
      "src/nix.rs": "",
      "src/feat.rs": "mod deep;\n#[cfg(windows)]\nmod deeper;\n",
      "src/feat/deep.rs": "",
      "src/feat/deeper.rs": "", // off and not known: off
      "src/both.rs": "",
      "src/either.rs": "",
      "src/nontest.rs": "",
      "src/mac.rs": "",
      "src/w/x.rs": "",
      "src/imp.rs": "",
      "src/orphan.rs": "",
    }),
    {
      unreached: ["src/orphan.rs"],
      inactive: [
        "src/both.rs",
        "src/feat/deeper.rs",
        "src/mac.rs",
        "src/nontest.rs",
        "src/w/x.rs",
        "src/win/inner.rs",
        "src/win/mod.rs",
      ],
      uncertain: ["src/either.rs", "src/feat.rs", "src/feat/deep.rs"],
    },
  );
});
