// Coverage of gopls's workspace-wide answers (issue 17): gopls loads one build (its GOOS, GOARCH
// and tags), so a file whose build constraints leave it out (`//go:build ignore`, x_windows.go on
// Linux) is searched by no reference, rename or caller question, and it said `partial: false`.
// Now the answer names those of them that hold the name asked about, and a rename apply on it
// needs allow_partial.
import assert from "node:assert/strict";
import { startTask } from "../helpers/program.ts";
import { join } from "node:path";
import {
  answered,
  openSession,
  partialRenameApplied,
  referencesAt,
  refusedAsPartial,
} from "../helpers/session.ts";
import { spanWithin } from "../helpers/locate.ts";

const FILES: Record<string, string> = {
  "go.mod": "module example.com/m\n\ngo 1.22\n",
  "greet.go": "package m\n\n// Greet greets.\nfunc Greet(name string) string { return name }\n\n" +
    'func use() string { return Greet("a") }\n\n// Farewell says goodbye.\n' +
    'func Farewell() string { return "bye" }\n',
  // Tests are in gopls's build: searched, and not said to be left out.
  "greet_test.go": 'package m\n\nimport "testing"\n\nfunc TestGreet(t *testing.T) {\n' +
    '\tif Greet("b") == "" || Farewell() == "" {\n\t\tt.Fail()\n\t}\n}\n',
  // Left out on Linux by its name.
  "greet_windows.go": 'package m\n\nfunc win() string { return Greet("c") }\n',
  // Left out by its constraint: a generator run with `go run gen.go`.
  "gen.go": '//go:build ignore\n\npackage main\n\nimport "example.com/m"\n\n' +
    'func main() { println(m.Greet("d")) }\n',
  // Left out too, but holds neither name: not named.
  "other_windows.go": "package m\n\nfunc other() int { return 1 }\n",
};

Deno.test("gopls: files its build leaves out (//go:build ignore, x_windows.go) make references, callers and rename partial with the reason; an apply needs allow_partial", async () => {
  // The reason names the build gopls loads: this host's.
  assert.equal(Deno.build.os, "linux", "the files left out are chosen for a Linux host");
  const arch = Deno.build.arch === "x86_64" ? "amd64" : "arm64";
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gopls_cov_" }));
  for (const [rel, text] of Object.entries(FILES)) await Deno.writeTextFile(join(root, rel), text);
  const at = (file: string, context: string, name: string) => ({
    file,
    ...spanWithin(FILES[file], context, name),
  });
  const reason = `gopls's build (linux/${arch}) leaves gen.go, greet_windows.go out (build ` +
    "constraints): gopls did not search them";
  const session = await openSession(root, { role: "main", allowMutations: true });
  try {
    const greet = at("greet.go", "func Greet(", "Greet");
    const where = { file: "greet.go", line: greet.line, symbol: "Greet" };
    const refs = await referencesAt(session, 1, where, [
      greet,
      at("greet.go", 'Greet("a")', "Greet"),
      at("greet_test.go", 'Greet("b")', "Greet"),
    ]);
    assert.equal(refs.details.partial, true, refs.text);
    assert.equal(refs.details.partialReason, reason);
    assert.match(refs.text, /Note: this answer is partial: gopls's build/);

    const callers = answered(await session.handle({ id: 2, action: "incoming_calls", ...where }));
    const calls = callers.details.calls as { name: string; file: string }[];
    assert.deepEqual(
      calls.map((c) => [c.name, c.file]).sort(),
      [["TestGreet", "greet_test.go"], ["use", "greet.go"]],
      callers.text,
    );
    assert.equal(callers.details.partialReason, reason);

    // A name no file left out holds: the answer is complete.
    const farewell = at("greet.go", "func Farewell(", "Farewell");
    const bye = await referencesAt(session, 3, {
      file: "greet.go",
      line: farewell.line,
      symbol: "Farewell",
    }, [farewell, at("greet_test.go", "Farewell()", "Farewell")]);
    assert.equal(bye.details.partial, false, bye.text);

    const rename = { ...where, new_name: "Hello" };
    const applied = await partialRenameApplied(session, [4, 5], rename, reason, root, FILES);
    assert.equal(applied.details.applied, true, applied.text);
    for (const file of ["greet.go", "greet_test.go"]) {
      assert.equal(
        await Deno.readTextFile(join(root, file)),
        FILES[file].replaceAll(/\bGreet\b/g, "Hello"),
        file,
      );
    }
    // What gopls did not search stays as it was, and no longer builds: why it was refused.
    for (const file of ["greet_windows.go", "gen.go"]) {
      assert.equal(await Deno.readTextFile(join(root, file)), FILES[file], file);
    }
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

// A go.work's modules are one gopls view; a module beside them that its `use` list leaves out is
// in no package of it. References to a.Foo asked from a missed c's call and said complete, and an
// applied rename broke c's build; asked from c, gopls answered from c's own view and missed b's.
const WORK: Record<string, string> = {
  "go.work": "go 1.21\n\n// The modules of this workspace.\nuse (\n\t./a // the library\n" +
    '\t"./b"\n)\n',
  "a/go.mod": "module example.com/a\n\ngo 1.21\n",
  "a/a.go": "package a\n\n// Foo is used by b and c.\nfunc Foo() int { return 1 }\n",
  "b/go.mod": "module example.com/b\n\ngo 1.21\n\nrequire example.com/a v0.0.0\n\n" +
    "replace example.com/a => ../a\n",
  "b/b.go": 'package b\n\nimport "example.com/a"\n\nvar B = a.Foo()\n',
  "c/go.mod": "module example.com/c\n\ngo 1.21\n\nrequire example.com/a v0.0.0\n\n" +
    "replace (\n\texample.com/a => ../a // the library, beside it\n)\n",
  "c/c.go": 'package c\n\nimport "example.com/a"\n\nvar C = a.Foo()\n',
  // Unused by go.work too, but without the name: not named.
  "d/go.mod": "module example.com/d\n\ngo 1.21\n",
  "d/d.go": "package d\n\nvar D = 4\n",
};

Deno.test("gopls: a module go.work does not use makes references and rename partial, naming its files; asked from it, those of the modules go.work uses", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gopls_work_" }));
  for (const [rel, text] of Object.entries(WORK)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  const at = (file: string, context: string, name: string) => ({
    file,
    ...spanWithin(WORK[file], context, name),
  });
  const session = await openSession(root, { role: "main", allowMutations: true });
  try {
    const foo = at("a/a.go", "func Foo(", "Foo");
    const where = { file: "a/a.go", line: foo.line, symbol: "Foo" };
    const fromA = await referencesAt(session, 1, where, [foo, at("b/b.go", "a.Foo()", "Foo")]);
    const reason = "c/c.go is in no module go.work uses: gopls did not search it";
    assert.equal(fromA.details.partialReason, reason, fromA.text);

    const call = at("c/c.go", "a.Foo()", "Foo");
    const fromC = await referencesAt(
      session,
      2,
      { file: "c/c.go", line: call.line, symbol: "Foo" },
      [foo, call],
    );
    assert.equal(
      fromC.details.partialReason,
      "go.work does not use the module c, so gopls answered from it and the packages it " +
        "imports alone: it did not search b/b.go",
      fromC.text,
    );

    refusedAsPartial(
      await session.handle({
        id: 3,
        action: "rename",
        ...where,
        new_name: "Foo2",
        apply: true,
        if_clean: true,
      }),
      reason,
    );
    for (const [rel, text] of Object.entries(WORK)) {
      assert.equal(await Deno.readTextFile(join(root, rel)), text, rel);
    }
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

// gopls told of a file created in a new folder (didChangeWatchedFiles) loads no package for it
// until the file is opened: references to a.Foo kept missing b's call, complete, and an applied
// rename broke b. A Go file created while gopls runs is now opened in it before the next query.
Deno.test("gopls: a package created while gopls runs is searched by the next references", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gopls_new_" }));
  const a = "package a\n\nfunc Foo() int { return 1 }\n\nfunc Bar() int { return Foo() }\n";
  const b = 'package b\n\nimport "example.com/s/a"\n\nvar X = a.Foo()\n';
  await Deno.writeTextFile(join(root, "go.mod"), "module example.com/s\n\ngo 1.21\n");
  await Deno.mkdir(join(root, "a"));
  await Deno.writeTextFile(join(root, "a/a.go"), a);
  const session = await openSession(root);
  try {
    const foo = { file: "a/a.go", ...spanWithin(a, "func Foo(", "Foo") };
    const where = { file: "a/a.go", line: foo.line, symbol: "Foo" };
    const bar = { file: "a/a.go", ...spanWithin(a, "return Foo()", "Foo") };
    await referencesAt(session, 1, where, [foo, bar]);
    await Deno.mkdir(join(root, "b"));
    await Deno.writeTextFile(join(root, "b/b.go"), b);
    const call = { file: "b/b.go", ...spanWithin(b, "a.Foo()", "Foo") };
    const refs = await referencesAt(session, 2, where, [foo, bar, call]);
    assert.equal(refs.details.partial, false, refs.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("gopls: a package created at once (a folder and its file) is searched, Deno's watcher on the main thread", async () => {
  // Deno's watcher sets a new folder's watch after the fact: the file written into it meanwhile
  // went unreported (a reviewer's find: 5 runs of 6 missed b's call, complete). JSON lines, as an
  // agent runs it; the folder made and filled while lspgate waits, as a Write tool does.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gopls_new_" }));
  const a = "package a\n\nfunc Foo() int { return 1 }\n";
  await Deno.writeTextFile(join(root, "go.mod"), "module example.com/s\n\ngo 1.21\n");
  await Deno.mkdir(join(root, "a"));
  await Deno.writeTextFile(join(root, "a/a.go"), a);
  // The start task's grant, as the README runs it.
  const program = startTask(["--root", root]);
  const references = { action: "references", file: "a/a.go", line: 3, symbol: "Foo" };
  try {
    const files = async (id: number) => {
      const answer = await program.ask({ id, ...references }) as {
        details: { locations: { file: string }[]; partial: boolean };
      };
      return answer.details.locations.map((l) => l.file);
    };
    assert.deepEqual(await files(1), ["a/a.go"]);
    for (let round = 0; round < 4; round++) {
      const folder = `b${round}`;
      await Deno.mkdir(join(root, folder));
      await Deno.writeTextFile(
        join(root, folder, "b.go"),
        `package ${folder}\n\nimport "example.com/s/a"\n\nvar X = a.Foo()\n`,
      );
      // Asked a moment later, as an agent does after its write.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const found = await files(round + 2);
      assert.ok(found.includes(`${folder}/b.go`), `round ${round}: ${found}`);
    }
  } finally {
    await program.finish();
    await Deno.remove(root, { recursive: true });
  }
});
