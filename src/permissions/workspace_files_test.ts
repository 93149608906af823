// WorkspaceRoot's file I/O (readText, writeText) and glob, and its refusals under Deno's own
// sandbox; resolving paths is workspace_test.ts's.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertCode,
  assertOutsideUntouched,
  CANARY,
  makeFixture,
  withoutInput,
  withWorkspace,
} from "./test_fixture.ts";
import type { WorkspacePath } from "./workspace.ts";

// --- readText / writeText ----------------------------------------------------------

Deno.test("readText() reads the file and keeps a BOM", () =>
  withWorkspace(async (root, fx) => {
    assert.equal(await root.readText(await root.resolve("src/a.ts")), "export const a = 1;\n");
    await Deno.writeTextFile(join(fx.ws, "bom.ts"), "\uFEFFx");
    assert.equal(await root.readText(await root.resolve("bom.ts")), "\uFEFFx");
  }));

Deno.test("readText() refuses folders and files over maxBytes", () =>
  withWorkspace(async (root) => {
    await assertCode(root.readText(await root.resolve("src")), "INVALID_INPUT");
    await assertCode(
      root.readText(await root.resolve("src/a.ts"), { maxBytes: 4 }),
      "INVALID_INPUT",
    );
  }));

Deno.test("readText() refuses a file swapped for a symlink out after resolve()", () =>
  withWorkspace(async (root, fx) => {
    const p = await root.resolve("src/a.ts");
    await Deno.remove(join(fx.ws, "src/a.ts"));
    await Deno.symlink(join(fx.outside, "secret.txt"), join(fx.ws, "src/a.ts"));
    const error = await assertCode(root.readText(p), "OUTSIDE_WORKSPACE");
    assert.ok(!error.message.includes(CANARY.trim()));
  }));

Deno.test("readText() and writeText() refuse a folder swapped for a symlink out after resolve()", () =>
  withWorkspace(async (root, fx) => {
    const p = await root.resolve("src/inner.ts", { mustExist: false });
    await Deno.writeTextFile(join(fx.ws, "src/inner.ts"), "mine");
    await Deno.rename(join(fx.ws, "src"), join(fx.ws, "src_moved"));
    await Deno.symlink(fx.outside, join(fx.ws, "src"));
    await assertCode(root.readText(p), "OUTSIDE_WORKSPACE");
    await assertCode(root.writeText(p, "pwned"), "OUTSIDE_WORKSPACE");
    const created = await root.resolve("src/new/x.ts", { mustExist: false }).catch((e) => e);
    assert.equal(created.code, "OUTSIDE_WORKSPACE");
  }));

Deno.test("writeText() refuses a file swapped for a symlink out after resolve()", () =>
  withWorkspace(async (root, fx) => {
    const p = await root.resolve("src/a.ts", { access: "write" });
    await Deno.remove(join(fx.ws, "src/a.ts"));
    await Deno.symlink(join(fx.outside, "secret.txt"), join(fx.ws, "src/a.ts"));
    await assertCode(root.writeText(p, "pwned"), "OUTSIDE_WORKSPACE");
  }));

Deno.test("readText() and writeText() re-check even a forged WorkspacePath", () =>
  withWorkspace(async (root, fx) => {
    for (
      const forged of [
        join(fx.outside, "secret.txt"),
        join(fx.ws, "dir_out/inner.ts"),
        join(fx.ws, "link_out.txt"),
        join(fx.ws, "dir_out/planted.ts"),
        `${fx.ws}/../outside/inner.ts`,
      ]
    ) {
      const p = forged as WorkspacePath;
      if (!forged.endsWith("planted.ts")) await assertCode(root.readText(p), "OUTSIDE_WORKSPACE");
      await assertCode(root.writeText(p, "pwned"), "OUTSIDE_WORKSPACE");
    }
    await assertCode(root.readText("src/a.ts" as WorkspacePath), "INVALID_INPUT");
  }));

Deno.test({
  name: "resolve() of a folder the OS refuses is PERMISSION_DENIED, not a raw error",
  ignore: Deno.uid() === 0,
  fn: () =>
    withWorkspace(async (root, fx) => {
      const locked = join(fx.ws, "locked");
      await Deno.mkdir(locked);
      await Deno.writeTextFile(join(locked, "x.ts"), "x");
      await Deno.chmod(locked, 0o000);
      try {
        await assertCode(root.resolve("locked/x.ts"), "PERMISSION_DENIED");
      } finally {
        await Deno.chmod(locked, 0o755);
      }
    }),
});

Deno.test("writeText() writes atomically, keeps the mode and leaves no temp file", () =>
  withWorkspace(async (root, fx) => {
    const path = join(fx.ws, "src/a.ts");
    for (const mode of [0o755, 0o664, 0o600]) {
      await Deno.chmod(path, mode);
      await root.writeText(await root.resolve("src/a.ts"), `mode ${mode}\n`);
      assert.equal(await Deno.readTextFile(path), `mode ${mode}\n`);
      assert.equal((await Deno.stat(path)).mode! & 0o7777, mode);
    }
    const names: string[] = [];
    for await (const entry of Deno.readDir(join(fx.ws, "src"))) names.push(entry.name);
    assert.deepEqual(names.sort(), ["a.ts", "ünï cödé 😀.ts"].sort());
  }));

Deno.test("writeText() handles a file name at the length limit", () =>
  withWorkspace(async (root, fx) => {
    const name = `${"n".repeat(252)}.ts`;
    await root.writeText(await root.resolve(name, { mustExist: false }), "long");
    assert.equal(await Deno.readTextFile(join(fx.ws, name)), "long");
  }));

Deno.test("writeText() refuses folders and non-string text", () =>
  withWorkspace(async (root) => {
    await assertCode(root.writeText(await root.resolve("src"), "x"), "INVALID_INPUT");
    await assertCode(
      root.writeText(await root.resolve("src/a.ts"), 42 as unknown as string),
      "INVALID_INPUT",
    );
  }));

// --- glob --------------------------------------------------------------------------

Deno.test("glob() finds files, follows inside links, skips heavy folders and links out", () =>
  withWorkspace(async (root, fx) => {
    const result = await root.glob("**/*.ts");
    assert.deepEqual(result, {
      paths: [join(fx.ws, "src/a.ts"), join(fx.ws, "src/ünï cödé 😀.ts")],
      truncated: false,
    });
  }));

Deno.test("glob() excludes matches through a symlinked folder pointing outside", () =>
  withWorkspace(async (root) => {
    assert.deepEqual(await root.glob("dir_out/*.ts"), { paths: [], truncated: false });
    assert.deepEqual(await root.glob("**/inner.ts"), { paths: [], truncated: false });
    assert.deepEqual(await root.glob("*.txt"), { paths: [], truncated: false });
  }));

Deno.test("glob() enters a symlinked folder that stays inside, once", () =>
  withWorkspace(async (root, fx) => {
    await Deno.symlink("src", join(fx.ws, "alias"));
    await Deno.symlink("..", join(fx.ws, "src/up"));
    const result = await root.glob("alias/*.ts");
    assert.deepEqual(result.paths, [join(fx.ws, "src/a.ts"), join(fx.ws, "src/ünï cödé 😀.ts")]);
    assert.equal((await root.glob("**/a.ts")).paths.length, 1);
  }));

Deno.test("glob() applies exclude to the real path behind a symlinked alias", () =>
  withWorkspace(async (root, fx) => {
    await Deno.symlink("src", join(fx.ws, "alias"));
    await Deno.symlink("node_modules", join(fx.ws, "deps"));
    assert.deepEqual((await root.glob("**/*.ts", { exclude: ["src/**"] })).paths, []);
    // Heavy folders are skipped behind an alias too, unless the pattern names the alias.
    assert.deepEqual((await root.glob("**/index.ts")).paths, []);
    assert.deepEqual((await root.glob("deps/**/*.ts")).paths, [
      join(fx.ws, "node_modules/pkg/index.ts"),
    ]);
  }));

Deno.test("glob() refuses patterns that climb out or are absolute outside", () =>
  withWorkspace(async (root, fx) => {
    for (
      const pattern of [
        "../outside/*",
        "src/../../outside/*.txt",
        "**/../../*",
        "{..,src}/*.ts",
        "{src,{a,..}}/*",
        "/etc/*",
        `${fx.outside}/*`,
        `${fx.ws}-evil/*`,
        "C:\\x\\*",
        "file:///etc/*",
      ]
    ) {
      await assertCode(root.glob(pattern), "OUTSIDE_WORKSPACE");
    }
    await assertCode(root.glob("src\\*.ts"), "INVALID_INPUT");
    await assertCode(root.glob(""), "INVALID_INPUT");
  }));

Deno.test("glob() accepts an absolute pattern inside the root", () =>
  withWorkspace(async (root, fx) => {
    assert.deepEqual((await root.glob(`${fx.ws}/src/a.ts`)).paths, [join(fx.ws, "src/a.ts")]);
  }));

Deno.test("glob() supports ?, [abc], {a,b} and explicit heavy folders", () =>
  withWorkspace(async (root, fx) => {
    const a = join(fx.ws, "src/a.ts");
    assert.deepEqual((await root.glob("src/?.ts")).paths, [a]);
    assert.deepEqual((await root.glob("src/[abc].ts")).paths, [a]);
    assert.deepEqual((await root.glob("src/[!a].ts")).paths, []);
    assert.deepEqual((await root.glob("{src,lib}/{a,b}.ts")).paths, [a]);
    assert.deepEqual((await root.glob("node_modules/**/*.ts")).paths, [
      join(fx.ws, "node_modules/pkg/index.ts"),
    ]);
    assert.deepEqual((await root.glob(".git/*")).paths, [join(fx.ws, ".git/config.ts")]);
  }));

Deno.test("glob() stops at limit and says it was truncated", () =>
  withWorkspace(async (root, fx) => {
    for (let i = 0; i < 5; i++) await Deno.writeTextFile(join(fx.ws, `f${i}.ts`), "");
    const result = await root.glob("*.ts", { limit: 3 });
    assert.equal(result.paths.length, 3);
    assert.equal(result.truncated, true);
    // Five files plus link_in.ts, whose real path is src/a.ts.
    assert.equal((await root.glob("*.ts", { limit: 6 })).paths.length, 6);
    assert.equal((await root.glob("*.ts", { limit: 6 })).truncated, false);
    await assertCode(root.glob("*.ts", { limit: 0 }), "INVALID_INPUT");
  }));

Deno.test("glob() honours exclude for files and whole folders", () =>
  withWorkspace(async (root, fx) => {
    await Deno.mkdir(join(fx.ws, "gen"));
    await Deno.writeTextFile(join(fx.ws, "gen/g.ts"), "");
    assert.deepEqual((await root.glob("**/*.ts", { exclude: ["src/**", "gen"] })).paths, []);
    assert.deepEqual((await root.glob("**/*.ts", { exclude: ["**/a.ts", "**/gen/**"] })).paths, [
      join(fx.ws, "src/ünï cödé 😀.ts"),
    ]);
    await assertCode(root.glob("**", { exclude: ["../x"] }), "OUTSIDE_WORKSPACE");
  }));

// --- under Deno's own sandbox ---------------------------------------------------------

Deno.test("under --allow-read=<root>, outside paths are OUTSIDE_WORKSPACE, not PERMISSION_DENIED", async () => {
  const fx = await makeFixture();
  try {
    const probe = join(fx.base, "probe.ts");
    const moduleUrl = new URL("./workspace.ts", import.meta.url).href;
    await Deno.writeTextFile(
      probe,
      `import { WorkspaceRoot } from ${JSON.stringify(moduleUrl)};
const root = await WorkspaceRoot.open(${JSON.stringify(fx.ws)});
const codes = [];
for (const input of ["/etc/passwd", "../outside/secret.txt", "link_out.txt", "dir_out/inner.ts", "src/a.ts"]) {
  codes.push(await root.resolve(input).then(() => "ok", (e) => e.code ?? String(e)));
}
console.log(JSON.stringify(codes));`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", `--allow-read=${fx.ws}`, probe],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), [
      "OUTSIDE_WORKSPACE",
      "OUTSIDE_WORKSPACE",
      "OUTSIDE_WORKSPACE",
      "OUTSIDE_WORKSPACE",
      "ok",
    ]);
    await assertOutsideUntouched(fx);
  } finally {
    await fx.remove();
  }
});

Deno.test("under --allow-read=<root>, a refusal reads the same for outside targets that exist or not", async () => {
  const fx = await makeFixture();
  try {
    await Deno.symlink(join(fx.outside, "missing.txt"), join(fx.ws, "link_missing.txt"));
    await Deno.symlink(`/proc/self/root${fx.outside}/secret.txt`, join(fx.ws, "proc_secret.txt"));
    await Deno.symlink(`/proc/self/root${fx.outside}/missing.txt`, join(fx.ws, "proc_missing.txt"));
    const probe = join(fx.base, "probe.ts");
    const moduleUrl = new URL("./workspace.ts", import.meta.url).href;
    const inputs = [
      "/etc/passwd",
      "/etc/lspgate-no-such-file",
      "../outside/secret.txt",
      "../outside/missing.txt",
      "link_out.txt",
      "link_missing.txt",
      "proc_secret.txt",
      "proc_missing.txt",
      "dir_out/inner.ts",
      "dir_out/missing.ts",
      `/proc/self/root${fx.outside}/secret.txt`,
      `/proc/self/root${fx.outside}/missing.txt`,
      "/dev/stdin",
      "/proc/self/fd/0",
    ];
    await Deno.writeTextFile(
      probe,
      `import { WorkspaceRoot } from ${JSON.stringify(moduleUrl)};
const root = await WorkspaceRoot.open(${JSON.stringify(fx.ws)});
const out = [];
for (const input of ${JSON.stringify(inputs)}) {
  out.push(await root.resolve(input).then(() => "ok", (e) => ({ code: e.code, message: e.message, data: e.data })));
}
console.log(JSON.stringify(out));`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", `--allow-read=${fx.ws}`, probe],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const errors = JSON.parse(new TextDecoder().decode(output.stdout));
    const expected = JSON.stringify({
      code: "OUTSIDE_WORKSPACE",
      message: `<input> is outside the workspace ${fx.ws}.`,
      data: { path: "<input>" },
    });
    inputs.forEach((input, i) => assert.equal(withoutInput(errors[i], input), expected, input));
    await assertOutsideUntouched(fx);
  } finally {
    await fx.remove();
  }
});

Deno.test("glob() skips `target` beside a build tool's manifest only: elsewhere it is source", () =>
  withWorkspace(async (root, fx) => {
    for (
      const [rel, text] of Object.entries({
        "rs/Cargo.toml": "[package]\n",
        "rs/target/debug/build.ts": "",
        "mvn/pom.xml": "<project/>\n",
        "mvn/target/gen.ts": "",
        "web/target/route.ts": "",
      })
    ) {
      await Deno.mkdir(join(fx.ws, rel, ".."), { recursive: true });
      await Deno.writeTextFile(join(fx.ws, rel), text);
    }
    const found = (await root.glob("**/*.ts")).paths.filter((p) => p.includes("/target/"));
    assert.deepEqual(found, [join(fx.ws, "web/target/route.ts")]);
  }));
