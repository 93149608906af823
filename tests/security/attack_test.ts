// Wall 1 against a confused or malicious agent: paths, URIs and globs that try to leave the root.
// Each case asks every path-taking action, as a sub-agent (reads) and as main with mutations
// (applies), and checks the canaries outside are unread (their token is in no answer) and
// unwritten (content, mtime, no new files); refused inputs never reach a language server.
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertOk, assertRefused, type AttackFixture, withFixture } from "./fixture.ts";

type Code = "OUTSIDE_WORKSPACE" | "INVALID_INPUT" | "FILE_NOT_FOUND";

interface InputCase {
  name: string;
  input: (fx: AttackFixture) => string;
  code: Code;
  /** Also try the input as rename_file's destination (default: unless FILE_NOT_FOUND). */
  destination?: boolean;
}

const INPUTS: InputCase[] = [
  { name: "a `..` step", input: () => "../outside/secret.ts", code: "OUTSIDE_WORKSPACE" },
  {
    name: "a long `..` chain to /etc/passwd",
    input: () => "../".repeat(30) + "etc/passwd",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "`src/../../x`",
    input: () => "src/../../outside/secret.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "an absolute path outside",
    input: (fx) => fx.secret,
    code: "OUTSIDE_WORKSPACE",
  },
  { name: "/etc/passwd", input: () => "/etc/passwd", code: "OUTSIDE_WORKSPACE" },
  {
    name: "an absolute path through the root and `..`",
    input: (fx) => `${fx.root}/src/../../outside/secret.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "prefix confusion: `<root>-evil/` absolute",
    input: (fx) => `${fx.evil}/secret.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "prefix confusion: `../ws-evil/`",
    input: () => "../ws-evil/secret.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a symlinked file pointing out (absolute target)",
    input: () => "src/leak.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a symlinked file pointing out (relative target)",
    input: () => "src/rel_out.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file inside a symlinked folder pointing out",
    input: () => "linkdir/secret.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a chain: inside link → inside link → folder link → out",
    input: () => "src/hop1.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a dangling symlink whose target is outside",
    input: () => "src/dangling.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  { name: "a symlink loop", input: () => "src/loop_a.ts", code: "INVALID_INPUT" },
  {
    name: "a file:// URI outside",
    input: (fx) => `file://${fx.secret}`,
    code: "OUTSIDE_WORKSPACE",
  },
  { name: "file:///etc/passwd", input: () => "file:///etc/passwd", code: "OUTSIDE_WORKSPACE" },
  { name: "FILE:///etc/passwd", input: () => "FILE:///etc/passwd", code: "OUTSIDE_WORKSPACE" },
  {
    name: "a `file:/path` URI without the slashes",
    input: (fx) => `file:${fx.secret}`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file:// URI with `..` through the root",
    input: (fx) => `file://${fx.root}/../outside/secret.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file:// URI with percent-encoded `%2e%2e`",
    input: (fx) => `file://${fx.root}/src/%2e%2e/%2E%2E/outside/secret.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file:// URI with an encoded `%2F`",
    input: (fx) => `file://${fx.root}/src/..%2F..%2Foutside%2Fsecret.ts`,
    code: "INVALID_INPUT",
  },
  {
    name: "a file:// URI with an encoded backslash `%5C`",
    input: (fx) => `file://${fx.root}/src/..%5C..%5Coutside%5Csecret.ts`,
    code: "INVALID_INPUT",
  },
  {
    name: "a file:// URI with an encoded NUL `%00`",
    input: (fx) => `file://${fx.root}/src/a.ts%00.ts`,
    code: "INVALID_INPUT",
  },
  {
    name: "a file://host/ URI",
    input: (fx) => `file://attacker.example${fx.secret}`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file://localhost/ URI outside",
    input: (fx) => `file://localhost${fx.secret}`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file:// URI with a fragment",
    input: (fx) => `file://${fx.root}/src/a.ts#/../../outside/secret.ts`,
    code: "INVALID_INPUT",
  },
  {
    name: "a plain path with `%2e%2e` (not decoded: a literal folder that does not exist)",
    input: () => "src/%2e%2e/%2e%2e/outside/secret.ts",
    code: "FILE_NOT_FOUND",
  },
  {
    name: "a NUL byte",
    input: () => "src/a.ts\0../../outside/secret.ts",
    code: "INVALID_INPUT",
  },
  { name: "a 5000-character path", input: () => "a/".repeat(2500), code: "INVALID_INPUT" },
  {
    name: "a 5000-character file:// URI",
    input: (fx) => `file://${fx.root}/${"a".repeat(5000)}.ts`,
    code: "INVALID_INPUT",
  },
  {
    name: "backslashes with `..`",
    input: () => "src\\..\\..\\outside\\secret.ts",
    code: "INVALID_INPUT",
  },
  { name: "a `C:\\` drive path", input: () => "C:\\Windows\\win.ini", code: "OUTSIDE_WORKSPACE" },
  { name: "a `C:/` drive path", input: () => "C:/Windows/win.ini", code: "OUTSIDE_WORKSPACE" },
  {
    name: "a UNC path",
    input: () => "\\\\attacker.example\\share\\secret.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "another URI scheme",
    input: () => "https://attacker.example/secret.ts",
    code: "INVALID_INPUT",
  },
  {
    name: "/proc/self/root leading back to the canary",
    input: (fx) => `/proc/self/root${fx.secret}`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    // Hole: the resolver answers FILE_NOT_FOUND ("<real> is a file, not a folder") before it
    // checks containment, so the code tells whether a path outside is a regular file.
    name: "a path below a file outside (no existence oracle)",
    input: (fx) => `${fx.secret}/x.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a path below /etc/passwd (no existence oracle)",
    input: () => "../".repeat(30) + "etc/passwd/x.ts",
    code: "OUTSIDE_WORKSPACE",
  },
  {
    // Same hole: ELOOP is answered INVALID_INPUT before containment, revealing a loop outside.
    name: "a path through a symlink loop outside (no existence oracle)",
    input: (fx) => `${fx.outside}/loop/x.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
];

/** Every read action that takes a file, asked about `file`. */
function readProbes(file: string): Record<string, unknown>[] {
  const at = { file, line: 1, column: 1 };
  return [
    { action: "hover", ...at },
    { action: "definition", ...at },
    { action: "references", ...at },
    { action: "call_hierarchy", ...at },
    { action: "symbols", file },
    { action: "diagnostics", file },
    { action: "format", file },
    { action: "rename", ...at, new_name: "insideOnly" },
    { action: "code_actions", ...at },
    { action: "rename_file", file, new_name: "src/moved.ts" },
    { action: "request", file, query: "textDocument/hover", payload: {} },
  ];
}

/** Every apply, asked about `file`. */
function applyProbes(file: string): Record<string, unknown>[] {
  const at = { file, line: 1, column: 1 };
  return [
    { action: "rename", ...at, new_name: "insideOnly", apply: true },
    { action: "format", file, apply: true },
    { action: "code_actions", ...at, query: "Fix inside", apply: true },
    { action: "rename_file", file, new_name: "src/moved.ts", apply: true },
  ];
}

for (const row of INPUTS) {
  Deno.test(`input attack: ${row.name} is ${row.code}`, () =>
    withFixture(async (fx) => {
      const input = row.input(fx);
      const reader = await fx.open({ role: "subagent" });
      const writer = await fx.open({ role: "main", allowMutations: true });
      for (const request of readProbes(input)) {
        assertRefused(await fx.ask(reader, request), row.code, request);
      }
      for (const request of applyProbes(input)) {
        assertRefused(await fx.ask(writer, request), row.code, request);
      }
      if (row.destination ?? row.code !== "FILE_NOT_FOUND") {
        for (const apply of [false, true]) {
          const request = { action: "rename_file", file: "src/b.ts", new_name: input, apply };
          assertRefused(await fx.ask(writer, request), row.code, request);
        }
        assert.ok((await Deno.lstat(join(fx.root, "src/b.ts"))).isFile, "src/b.ts was moved");
      }
      // Refused before any language server saw the path: only rename_file's destination check
      // runs after the source file was opened.
      const seen = JSON.stringify(await fx.logEntries());
      assert.ok(!seen.includes(fx.outside), `the server was told about the outside: ${seen}`);
    }));
}

const ALLOWED: { name: string; input: (fx: AttackFixture) => string }[] = [
  { name: "a symlink inside → inside", input: () => "src/alias.ts" },
  { name: "a `..` that stays inside", input: () => "src/../src/a.ts" },
  { name: "an absolute path inside", input: (fx) => `${fx.root}/src/a.ts` },
  { name: "a file:// URI inside", input: (fx) => `file://${fx.root}/src/a.ts` },
];

for (const row of ALLOWED) {
  Deno.test(`allowed input: ${row.name} is served as src/a.ts`, () =>
    withFixture(async (fx) => {
      const session = await fx.open({ role: "subagent" });
      for (const request of readProbes(row.input(fx)).slice(0, 6)) {
        const response = assertOk(await fx.ask(session, request), request);
        if (request.action === "symbols") {
          assert.equal((response.details.symbols as { file: string }[])[0].file, "src/a.ts");
        }
      }
    }));
}

// --- globs (the diagnostics action) -----------------------------------------------------

const GLOBS: { name: string; pattern: (fx: AttackFixture) => string; code: Code }[] = [
  { name: "`../**`", pattern: () => "../**/*.ts", code: "OUTSIDE_WORKSPACE" },
  { name: "`src/../../x/*`", pattern: () => "src/../../outside/*.ts", code: "OUTSIDE_WORKSPACE" },
  { name: "`**/../..`", pattern: () => "**/../../outside/*.ts", code: "OUTSIDE_WORKSPACE" },
  { name: "`..` inside braces", pattern: () => "{src,../outside}/*.ts", code: "OUTSIDE_WORKSPACE" },
  {
    name: "an absolute root outside",
    pattern: (fx) => `${fx.outside}/*.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "an absolute root with prefix confusion (`<root>-evil`)",
    pattern: (fx) => `${fx.evil}/*.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  { name: "`/**` from the file-system root", pattern: () => "/**/*.ts", code: "OUTSIDE_WORKSPACE" },
  {
    name: "an absolute path in braces",
    pattern: (fx) => `{src,${fx.outside}}/*.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  {
    name: "a file:// glob",
    pattern: (fx) => `file://${fx.outside}/*.ts`,
    code: "OUTSIDE_WORKSPACE",
  },
  { name: "a `C:\\` glob", pattern: () => "C:\\*.ts", code: "OUTSIDE_WORKSPACE" },
  { name: "backslashes", pattern: () => "..\\outside\\*.ts", code: "INVALID_INPUT" },
];

for (const row of GLOBS) {
  Deno.test(`glob attack: ${row.name} is ${row.code}`, () =>
    withFixture(async (fx) => {
      const session = await fx.open({ role: "subagent" });
      const request = { action: "diagnostics", file: row.pattern(fx) };
      assertRefused(await fx.ask(session, request), row.code, request);
      assert.deepEqual(await fx.logEntries(), [], "a refused glob started a server");
    }));
}

Deno.test("glob walk: symlinks out (file, folder, chain, dangling, loop) are not listed", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    for (const pattern of ["**/*.ts", "*", "src/*", "**"]) {
      const request = { action: "diagnostics", file: pattern };
      const response = assertOk(await fx.ask(session, request), request);
      const files = (response.details.files as { file: string }[]).map((f) => f.file).sort();
      assert.deepEqual(files, ["src/a.ts", "src/b.ts"], `${pattern}: ${JSON.stringify(files)}`);
    }
    for (const pattern of ["linkdir/*.ts", "linkdir/**", "src/leak.ts*", "src/hop?.ts"]) {
      const request = { action: "diagnostics", file: pattern };
      const response = assertOk(await fx.ask(session, request), request);
      assert.deepEqual(response.details.files, [], `${pattern} listed files through a link`);
    }
  }));

Deno.test("diagnostics files[]: each path outside is reported OUTSIDE_WORKSPACE, unread", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    const outside = ["../outside/secret.ts", fx.secret, "src/leak.ts", "linkdir/other.ts"];
    const request = { action: "diagnostics", files: [...outside, "src/a.ts"] };
    const response = assertOk(await fx.ask(session, request), request);
    const files = response.details.files as { file: string; status: string; message?: string }[];
    assert.equal(files.length, outside.length + 1);
    for (const entry of files.slice(0, outside.length)) {
      assert.equal(entry.status, "error", JSON.stringify(entry));
      assert.match(entry.message ?? "", /^OUTSIDE_WORKSPACE: /);
    }
    assert.equal(files.at(-1)?.status, "ok");
  }));
