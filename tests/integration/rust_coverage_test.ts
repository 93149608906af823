// Coverage of rust-analyzer's workspace-wide answers (issue 17): rust-analyzer analyses only the
// files a crate reaches from its roots through `mod` declarations, so a .rs file no crate declares
// (forgotten, or its `mod` line lost) was searched by no reference, rename, caller or workspace
// symbol question, and the answer said `partial: false` (so was a file declared under a #[cfg] off
// on this host). Now it names those of them that hold the name asked about, and a rename apply on
// it needs allow_partial.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import {
  answered,
  locationsOf,
  openSession,
  partialRenameApplied,
  referencesAt,
  sorted,
} from "../helpers/session.ts";
import { spanWithin } from "../helpers/locate.ts";
import { ensureRustAnalyzer, registersTest } from "../tools.ts";

const FILES: Record<string, string> = {
  "Cargo.toml": '[package]\nname = "cov"\nversion = "0.1.0"\nedition = "2021"\n\n' +
    "[features]\nfancy = []\n",
  "src/lib.rs": "pub mod words;\nmod nested;\n" +
    '#[path = "extra/far.rs"]\nmod far;\n' +
    // Neither a comment nor a string declares a module.
    '// mod orphan;\npub const NOTE: &str = "mod stale;";\n\n' +
    'pub fn use_it() -> String {\n    words::hello("a")\n}\n\n' +
    // Off on this host, and a feature off by default: rust-analyzer analyses neither file.
    '#[cfg(windows)]\nmod win;\n#[cfg(feature = "fancy")]\nmod fancy;\n\n' +
    "pub fn use_wave() -> u8 {\n    words::wave()\n}\n",
  "src/words.rs": "/// Greets.\npub fn hello(name: &str) -> String {\n    name.to_string()\n}\n\n" +
    '/// Says goodbye.\npub fn farewell() -> &\'static str {\n    "bye"\n}\n\n' +
    "/// Waves.\npub fn wave() -> u8 {\n    1\n}\n",
  "src/win.rs": "pub fn win() -> u8 {\n    crate::words::wave()\n}\n",
  "src/fancy.rs": "pub fn fancy() -> u8 {\n    crate::words::wave()\n}\n",
  "src/nested/mod.rs": "mod inner;\n",
  "src/nested/inner.rs": 'pub fn inner() -> String {\n    crate::words::hello("b")\n}\n',
  "src/extra/far.rs": 'pub fn far() -> String {\n    crate::words::hello("c")\n}\n',
  // A crate root of its own (an integration test): reached. No std macro: rust-analyzer expands
  // assert_eq! only once it has loaded the standard library.
  "tests/it.rs": "#[test]\nfn t() {\n" +
    '    let _ = cov::words::hello("e");\n    let _ = cov::words::farewell();\n}\n',
  // No crate declares these two: rust-analyzer does not analyse them.
  "src/orphan.rs": 'pub fn orphan() -> String {\n    crate::words::hello("d")\n}\n',
  "src/stale.rs": "pub fn stale() -> i32 {\n    1\n}\n",
};

// Needs the user's rust-analyzer: in the test runner's second pass while its first build runs.
if (registersTest(true)) {
  Deno.test("rust-analyzer: a .rs file no crate declares as a module (or only under a #[cfg] off here) makes references, callers and rename partial with the reason; an apply needs allow_partial", async () => {
    await ensureRustAnalyzer();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ra_cov_" }));
    for (const [rel, text] of Object.entries(FILES)) {
      await Deno.mkdir(dirname(join(root, rel)), { recursive: true });
      await Deno.writeTextFile(join(root, rel), text);
    }
    const at = (file: string, context: string, name: string) => ({
      file,
      ...spanWithin(FILES[file], context, name),
    });
    const reason =
      "rust-analyzer does not analyse src/orphan.rs (no crate declares it as a module)";
    const session = await openSession(root, { role: "main", allowMutations: true });
    try {
      const hello = at("src/words.rs", "pub fn hello(", "hello");
      const where = { file: "src/words.rs", line: hello.line, symbol: "hello" };
      const refs = await referencesAt(session, 1, where, [
        hello,
        at("src/lib.rs", 'words::hello("a")', "hello"),
        at("src/nested/inner.rs", 'hello("b")', "hello"),
        at("src/extra/far.rs", 'hello("c")', "hello"),
        at("tests/it.rs", 'hello("e")', "hello"),
      ]);
      assert.equal(refs.details.partial, true, refs.text);
      assert.equal(refs.details.partialReason, reason);
      assert.match(refs.text, /Note: this answer is partial: rust-analyzer does not analyse/);

      const callers = answered(await session.handle({ id: 2, action: "incoming_calls", ...where }));
      const calls = callers.details.calls as { name: string; file: string }[];
      assert.deepEqual(
        calls.map((c) => [c.name, c.file]).sort(),
        [
          ["far", "src/extra/far.rs"],
          ["inner", "src/nested/inner.rs"],
          ["t", "tests/it.rs"],
          ["use_it", "src/lib.rs"],
        ],
        callers.text,
      );
      assert.equal(callers.details.partialReason, reason);

      // Asked from the orphan itself, rust-analyzer finds nothing: said partial, not "nothing".
      const fromOrphan = answered(
        await session.handle({
          id: 7,
          action: "references",
          file: "src/orphan.rs",
          line: at("src/orphan.rs", "hello(", "hello").line,
          symbol: "hello",
        }),
      );
      assert.equal(fromOrphan.details.partial, true, fromOrphan.text);
      assert.equal(fromOrphan.details.partialReason, reason);

      // A name no orphan file holds: the answer is complete.
      const farewell = at("src/words.rs", "pub fn farewell(", "farewell");
      const bye = await referencesAt(session, 3, {
        file: "src/words.rs",
        line: farewell.line,
        symbol: "farewell",
      }, [farewell, at("tests/it.rs", "farewell()", "farewell")]);
      assert.equal(bye.details.partial, false, bye.text);

      // Files declared under a #[cfg] that is off (the host's; a feature's, which rust-analyzer is
      // asked about): their uses are missed too.
      const inactive = "src/fancy.rs, src/win.rs (declared under a #[cfg] its build turns off)";
      const off = `rust-analyzer does not analyse ${inactive}`;
      const wave = at("src/words.rs", "pub fn wave(", "wave");
      const waves = await referencesAt(session, 10, {
        file: "src/words.rs",
        line: wave.line,
        symbol: "wave",
      }, [wave, at("src/lib.rs", "words::wave()", "wave")]);
      assert.equal(waves.details.partialReason, off, waves.text);

      // Workspace symbols name every file rust-analyzer does not analyse.
      const both =
        "rust-analyzer does not analyse src/orphan.rs, src/stale.rs (no crate declares " +
        "them as modules)";
      const symbols = answered(
        await session.handle({ id: 4, action: "symbols", file: "*", query: "orphan" }),
      );
      assert.equal(symbols.details.partial, true, symbols.text);
      assert.ok(
        String(symbols.details.partialReason).endsWith(
          `${both} nor ${inactive}`,
        ),
        symbols.text,
      );

      const rename = { ...where, new_name: "greet" };
      const applied = await partialRenameApplied(session, [5, 6], rename, reason, root, FILES);
      assert.equal(applied.details.applied, true, applied.text);
      for (
        const file of ["src/words.rs", "src/lib.rs", "src/nested/inner.rs", "src/extra/far.rs"]
      ) {
        assert.equal(
          await Deno.readTextFile(join(root, file)),
          FILES[file].replaceAll(/\bhello\b/g, "greet"),
          file,
        );
      }
      assert.equal(
        await Deno.readTextFile(join(root, "tests/it.rs")),
        FILES["tests/it.rs"].replaceAll(/\bhello\b/g, "greet"),
      );
      // What rust-analyzer did not analyse stays as it was, and no longer builds if declared.
      assert.equal(await Deno.readTextFile(join(root, "src/orphan.rs")), FILES["src/orphan.rs"]);

      // Once lib.rs declares it (an edit in place: the file list is kept), it is judged again:
      // only stale.rs is left out.
      const again = answered(
        await session.handle({ id: 9, action: "symbols", file: "*", query: "orphan" }),
      );
      assert.ok(String(again.details.partialReason).includes(both), again.text);
      const lib = await Deno.readTextFile(join(root, "src/lib.rs"));
      await Deno.writeTextFile(join(root, "src/lib.rs"), `mod orphan;\n${lib}`);
      const declared = answered(
        await session.handle({ id: 8, action: "symbols", file: "*", query: "orphan" }),
      );
      assert.equal(declared.details.partial, true, declared.text);
      assert.ok(
        String(declared.details.partialReason).endsWith(
          ": rust-analyzer does not analyse src/stale.rs (no crate declares it as a module) nor " +
            inactive,
        ),
        String(declared.details.partialReason),
      );
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });

  // Each file here is analysed, however it is reached: nothing may be called left out.
  const REACHED: Record<string, string> = {
    "Cargo.toml": '[package]\nname = "cov"\nversion = "0.1.0"\nedition = "2021"\n\n' +
      '[features]\ndefault = ["fancy"]\nfancy = []\n',
    "src/lib.rs": "pub mod words;\n" +
      // A symlink, listed by its real path.
      '#[path = "zlink.rs"]\nmod aliased;\n' +
      // A feature on by default (rust-analyzer says so), and the host's cfg.
      '#[cfg(feature = "fancy")]\nmod fancy;\n#[cfg(unix)]\nmod nix;\n\n' +
      'pub fn use_it() -> String {\n    words::hello("a")\n}\n',
    "src/words.rs": "pub fn hello(name: &str) -> String {\n    name.to_string()\n}\n",
    "src/imp/real.rs": 'pub fn real() -> String {\n    crate::words::hello("r")\n}\n',
    "src/fancy.rs": 'pub fn fancy() -> String {\n    crate::words::hello("f")\n}\n',
    "src/nix.rs": 'pub fn nix() -> String {\n    crate::words::hello("n")\n}\n',
  };

  Deno.test("rust-analyzer: files reached through a symlinked #[path], a default feature or the host's cfg are not called left out", async () => {
    await ensureRustAnalyzer();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ra_cov_" }));
    for (const [rel, text] of Object.entries(REACHED)) {
      await Deno.mkdir(dirname(join(root, rel)), { recursive: true });
      await Deno.writeTextFile(join(root, rel), text);
    }
    await Deno.symlink("imp/real.rs", join(root, "src/zlink.rs"));
    const at = (file: string, context: string) => ({
      file,
      ...spanWithin(REACHED[file], context, "hello"),
    });
    const session = await openSession(root, { role: "main" });
    try {
      const hello = at("src/words.rs", "pub fn hello(");
      const refs = answered(
        await session.handle({
          id: 1,
          action: "references",
          file: "src/words.rs",
          line: hello.line,
          symbol: "hello",
        }),
      );
      // rust-analyzer names the symlinked file by the path the crate reaches it through.
      const viaLink = { ...at("src/imp/real.rs", 'hello("r")'), file: "src/zlink.rs" };
      assert.deepEqual(
        sorted(locationsOf(refs.answer)),
        sorted([
          hello,
          at("src/lib.rs", 'hello("a")'),
          viaLink,
          at("src/fancy.rs", 'hello("f")'),
          at("src/nix.rs", 'hello("n")'),
        ]),
        refs.text,
      );
      assert.equal(refs.details.partial, false, refs.text);
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}
