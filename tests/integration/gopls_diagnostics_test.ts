// gopls's diagnostics of the files its build leaves out. gopls checks a file of another GOOS in a
// view it makes for it, whose push raced the default view's empty one: the sweep reported
// go-isatty's isatty_bsd.go, with a type error, as clean. Now such a file is asked of gopls
// (adapters/gopls_diagnostics.ts), and one no build holds is said to be not checked.
import assert from "node:assert/strict";
import { join } from "node:path";
import { answered, openSession } from "../helpers/session.ts";
import { locate } from "../helpers/locate.ts";

const FILES: Record<string, string> = {
  "go.mod": "module example.com/m\n\ngo 1.22\n",
  "m.go": "package m\n\nfunc M() int { return 1 }\n",
  // Left out on Linux by its constraint, held by a darwin build.
  "term_bsd.go": '//go:build darwin || freebsd\n\npackage m\n\nfunc bsd() int { return "x" }\n',
  // Left out by its name.
  "term_windows.go": 'package m\n\nfunc win() int { return "x" }\n',
  // A generator (or a cgo -godefs input, which is no Go at all): no GOOS holds it.
  "gen.go": '//go:build ignore\n\npackage main\n\nfunc main() { var x int = "s"; _ = x }\n',
  // The go tool passes over testdata/.
  "testdata/bad.go": 'package bad\n\nvar x int = "s"\n',
  // A custom tag: no build gopls makes holds it.
  "tagged.go": '//go:build mytag\n\npackage m\n\nfunc tagged() int { return "x" }\n',
};

interface FileView {
  file: string;
  status: string;
  diagnostics: { line: number; column: number; severity: string }[];
  message?: string;
}

Deno.test('gopls: diagnostics "*" reports the errors of files its build leaves out, and says one no build holds was not checked', async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gopls_diag_" }));
  await Deno.mkdir(join(root, "testdata"));
  for (const [rel, text] of Object.entries(FILES)) await Deno.writeTextFile(join(root, rel), text);
  const session = await openSession(root);
  const error = (file: string, context: string) => {
    const { line, column } = locate(FILES[file], context);
    return { line, column, severity: "error" };
  };
  const notChecked = (file: string) => ({
    file,
    status: "unsupported",
    diagnostics: [],
    message: "no GOOS and GOARCH holds it, only a build tag gopls does not set (such as ignore " +
      "or race): not checked",
  });
  const tagged = notChecked("tagged.go");
  try {
    const sweep = answered(await session.handle({ id: 1, action: "diagnostics", file: "*" }));
    const files = (sweep.details.files as FileView[]).map((f) => ({
      ...f,
      diagnostics: f.diagnostics.map(({ line, column, severity }) => ({ line, column, severity })),
    }));
    assert.deepEqual(files, [
      notChecked("gen.go"),
      { file: "m.go", status: "ok", diagnostics: [] },
      tagged,
      { file: "term_bsd.go", status: "ok", diagnostics: [error("term_bsd.go", '"x"')] },
      { file: "term_windows.go", status: "ok", diagnostics: [error("term_windows.go", '"x"')] },
      {
        file: "testdata/bad.go",
        status: "unsupported",
        diagnostics: [],
        message: "the go tool passes over files in testdata/ and in folders or files whose names " +
          "begin with _ or . (no build holds it): not checked",
      },
    ], sweep.text);
    assert.match(sweep.text, /in 3 files checked \(1 clean\), 3 files not checked/);
    assert.match(sweep.text, /tagged\.go: unsupported — no GOOS and GOARCH holds it/);

    const alone = answered(
      await session.handle({ id: 2, action: "diagnostics", file: "tagged.go" }),
    );
    assert.deepEqual(alone.details.files, [tagged], alone.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
