// WorkspaceRoot opening and resolving paths: relative, absolute and URIs, symlinks, odd input,
// read-only roots, and refusals that reveal nothing of what lies outside. Its file I/O and glob
// are workspace_files_test.ts's.
import assert from "node:assert/strict";
import { join, posix } from "node:path";
import { assertCode, type Fixture, withoutInput, withWorkspace } from "./test_fixture.ts";
import { WorkspaceRoot } from "./workspace.ts";

// --- opening --------------------------------------------------------------

Deno.test("open() realpaths the root", () =>
  withWorkspace(async (root, fx) => {
    await Deno.symlink(fx.ws, join(fx.base, "alias"));
    const viaAlias = await WorkspaceRoot.open(join(fx.base, "alias"));
    assert.equal(viaAlias.path, fx.ws);
    assert.equal(root.path, fx.ws);
  }));

Deno.test("open() of a missing root is FILE_NOT_FOUND", () =>
  withWorkspace(async (_root, fx) => {
    await assertCode(WorkspaceRoot.open(join(fx.base, "nope")), "FILE_NOT_FOUND");
    await assertCode(WorkspaceRoot.open(join(fx.ws, "src/a.ts")), "FILE_NOT_FOUND");
  }));

// --- resolve(): plain paths -------------------------------------------------

Deno.test("resolve() turns a relative path into the real absolute path", () =>
  withWorkspace(async (root, fx) => {
    assert.equal(await root.resolve("src/a.ts"), join(fx.ws, "src/a.ts"));
    assert.equal(await root.resolve("./src/../src/a.ts"), join(fx.ws, "src/a.ts"));
    assert.equal(await root.resolve("."), fx.ws);
    assert.equal(await root.resolve(join(fx.ws, "src/a.ts")), join(fx.ws, "src/a.ts"));
  }));

Deno.test("resolve() refuses `..` chains that climb out", () =>
  withWorkspace(async (root) => {
    for (
      const input of [
        "..",
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "src/../../../../../../../../etc/passwd",
        "./src/./../../outside/inner.ts",
      ]
    ) {
      const error = await assertCode(root.resolve(input), "OUTSIDE_WORKSPACE");
      assert.match(error.message, /outside the workspace/);
      assert.deepEqual(error.data, { path: input });
    }
  }));

Deno.test("resolve() refuses absolute paths outside, even missing ones (no existence oracle)", () =>
  withWorkspace(async (root, fx) => {
    await assertCode(root.resolve("/etc/passwd"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve(join(fx.outside, "secret.txt")), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve(join(fx.outside, "missing.txt")), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("../outside/missing/deeper.txt"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("/"), "OUTSIDE_WORKSPACE");
  }));

Deno.test("resolve() does not mistake /ws-evil for a path inside /ws", () =>
  withWorkspace(async (root, fx) => {
    await assertCode(root.resolve(`${fx.ws}-evil/x.ts`), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("../ws-evil/x.ts"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve(`file://${fx.ws}-evil/x.ts`), "OUTSIDE_WORKSPACE");
    assert.equal(root.isInside(`${fx.ws}-evil/x.ts`), false);
  }));

Deno.test("resolve() of a missing file is FILE_NOT_FOUND, unless mustExist is false", () =>
  withWorkspace(async (root, fx) => {
    const error = await assertCode(root.resolve("src/missing.ts"), "FILE_NOT_FOUND");
    assert.match(error.message, /does not exist/);
    assert.equal(
      await root.resolve("src/missing.ts", { mustExist: false }),
      join(fx.ws, "src/missing.ts"),
    );
  }));

Deno.test("resolve() with mustExist false accepts a rename destination in a new subfolder", () =>
  withWorkspace(async (root, fx) => {
    const dest = await root.resolve("src/new/deeper/b.ts", { mustExist: false, access: "write" });
    assert.equal(dest, join(fx.ws, "src/new/deeper/b.ts"));
    await root.writeText(dest, "export const b = 2;\n");
    assert.equal(
      await Deno.readTextFile(join(fx.ws, "src/new/deeper/b.ts")),
      "export const b = 2;\n",
    );
  }));

Deno.test("resolve() below a file is FILE_NOT_FOUND", () =>
  withWorkspace(async (root) => {
    await assertCode(root.resolve("src/a.ts/x.ts"), "FILE_NOT_FOUND");
    await assertCode(root.resolve("src/a.ts/x.ts", { mustExist: false }), "FILE_NOT_FOUND");
  }));

// --- resolve(): symlinks ----------------------------------------------------

Deno.test("resolve() refuses a symlinked file that points outside", () =>
  withWorkspace(async (root, fx) => {
    const error = await assertCode(root.resolve("link_out.txt"), "OUTSIDE_WORKSPACE");
    assert.ok(!error.message.includes(fx.outside), error.message);
    await assertCode(root.resolve("link_out.txt", { access: "write" }), "OUTSIDE_WORKSPACE");
  }));

Deno.test("resolve() refuses a path through a symlinked folder that points outside", () =>
  withWorkspace(async (root) => {
    await assertCode(root.resolve("dir_out/inner.ts"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("dir_out"), "OUTSIDE_WORKSPACE");
    await assertCode(
      root.resolve("dir_out/planted.ts", { mustExist: false, access: "write" }),
      "OUTSIDE_WORKSPACE",
    );
    await assertCode(
      root.resolve("dir_out/new/planted.ts", { mustExist: false }),
      "OUTSIDE_WORKSPACE",
    );
  }));

Deno.test("resolve() follows a symlink that stays inside to its real path", () =>
  withWorkspace(async (root, fx) => {
    assert.equal(await root.resolve("link_in.ts"), join(fx.ws, "src/a.ts"));
    await Deno.symlink("src", join(fx.ws, "alias"));
    assert.equal(await root.resolve("alias/a.ts"), join(fx.ws, "src/a.ts"));
  }));

Deno.test("resolve() judges a dangling symlink by where it points", () =>
  withWorkspace(async (root, fx) => {
    await Deno.symlink("../outside/planted.ts", join(fx.ws, "dangling_out.ts"));
    await Deno.symlink("src/later.ts", join(fx.ws, "dangling_in.ts"));
    await assertCode(root.resolve("dangling_out.ts", { mustExist: false }), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("dangling_out.ts"), "OUTSIDE_WORKSPACE");
    assert.equal(
      await root.resolve("dangling_in.ts", { mustExist: false }),
      join(fx.ws, "src/later.ts"),
    );
    await assertCode(root.resolve("dangling_in.ts"), "FILE_NOT_FOUND");
  }));

Deno.test("resolve() of a symlink loop is INVALID_INPUT", () =>
  withWorkspace(async (root, fx) => {
    await Deno.symlink("loop_b", join(fx.ws, "loop_a"));
    await Deno.symlink("loop_a", join(fx.ws, "loop_b"));
    await Deno.symlink("self", join(fx.ws, "self"));
    for (const input of ["loop_a", "loop_a/x.ts", "self"]) {
      const error = await assertCode(root.resolve(input), "INVALID_INPUT");
      assert.match(error.message, /loop/);
      await assertCode(root.resolve(input, { mustExist: false }), "INVALID_INPUT");
    }
  }));

// --- refusals reveal nothing about what lies outside ------------------------------

/** Links planted in the workspace: each pair leads to an outside target that exists and one that does not. */
async function plantOutsideLinks(fx: Fixture): Promise<void> {
  const links: [string, string][] = [
    ["to_secret", join(fx.outside, "secret.txt")],
    ["to_missing", join(fx.outside, "missing.txt")],
    ["to_missing_dir", join(fx.outside, "nope/deeper.txt")],
    ["to_proc_secret", `/proc/self/root${fx.outside}/secret.txt`],
    ["to_proc_missing", `/proc/self/root${fx.outside}/missing.txt`],
    ["to_etc_passwd", "/etc/passwd"],
    ["to_etc_missing", "/etc/lspgate-no-such-file"],
    ["to_stdin", "/dev/stdin"],
    ["to_fd0", "/dev/fd/0"],
    ["to_proc_fd", "/proc/self/fd/0"],
    ["to_proc_fd_missing", "/proc/self/fd/987654"],
    ["to_proc_cwd", "/proc/self/cwd"],
    ["to_outside_loop", join(fx.base, "loops/loop_a")],
    ["to_secret_as_dir", join(fx.outside, "secret.txt/x")],
  ];
  for (const [name, target] of links) await Deno.symlink(target, join(fx.ws, name));
  await Deno.mkdir(join(fx.base, "loops"));
  await Deno.symlink("loop_b", join(fx.base, "loops/loop_a"));
  await Deno.symlink("loop_a", join(fx.base, "loops/loop_b"));
}

Deno.test("an outside refusal is byte-identical, apart from the input, whether the target exists or not", () =>
  withWorkspace(async (root, fx) => {
    await plantOutsideLinks(fx);
    const o = fx.outside;
    const inputs = [
      // plain, relative and absolute
      "../outside/secret.txt",
      "../outside/missing.txt",
      "../outside/missing/deeper.txt",
      "../outside/secret.txt/below-a-file",
      `${o}/secret.txt`,
      `${o}/missing.txt`,
      "/etc/passwd",
      "/etc/lspgate-no-such-file",
      "/lspgate-no-such-folder/x.ts",
      "/",
      // through /proc and /dev
      `/proc/self/root${o}/secret.txt`,
      `/proc/self/root${o}/missing.txt`,
      "/proc/self/root/etc/passwd",
      "/proc/self/root/etc/lspgate-no-such-file",
      "/proc/self/fd/0",
      "/proc/self/fd/987654",
      "/proc/self/cwd",
      "/proc/self/cwd/lspgate-no-such-file",
      "/dev/stdin",
      "/dev/fd/0",
      "/dev/fd/987654",
      // links in the workspace, dangling or not, and paths through them
      "to_secret",
      "to_missing",
      "to_missing_dir",
      "to_proc_secret",
      "to_proc_missing",
      "to_etc_passwd",
      "to_etc_missing",
      "to_stdin",
      "to_fd0",
      "to_proc_fd",
      "to_proc_fd_missing",
      "to_proc_cwd",
      "to_proc_cwd/lspgate-no-such-file",
      "to_outside_loop",
      "to_secret_as_dir",
      "dir_out/secret.txt",
      "dir_out/missing.txt",
      "dir_out/missing/deeper.txt",
      // file:// URIs
      `file://${o}/secret.txt`,
      `file://${o}/missing.txt`,
      `file:///proc/self/root${o}/secret.txt`,
      `file:///proc/self/root${o}/missing.txt`,
      `file://${fx.ws}/to_secret`,
      `file://${fx.ws}/to_missing`,
    ];
    const expected = JSON.stringify({
      code: "OUTSIDE_WORKSPACE",
      message: `<input> is outside the workspace ${fx.ws}.`,
      data: { path: "<input>" },
    });
    for (const input of inputs) {
      for (
        const options of [
          {},
          { mustExist: false },
          { access: "write" as const },
          { mustExist: false, access: "write" as const },
        ]
      ) {
        const error = await assertCode(root.resolve(input, options), "OUTSIDE_WORKSPACE");
        assert.equal(withoutInput(error, input), expected, `${input} ${JSON.stringify(options)}`);
      }
    }
  }));

Deno.test("an outside URI from a server is refused with the same words, existing or not", () =>
  withWorkspace(async (root, fx) => {
    const exists = await assertCode(
      root.resolveUri(`file://${fx.outside}/secret.txt`),
      "OUTSIDE_WORKSPACE",
    );
    const missing = await assertCode(
      root.resolveUri(`file://${fx.outside}/missing.txt`),
      "OUTSIDE_WORKSPACE",
    );
    assert.equal(
      withoutInput(exists, `file://${fx.outside}/secret.txt`),
      withoutInput(missing, `file://${fx.outside}/missing.txt`),
    );
  }));

Deno.test("a missing path outside is never FILE_NOT_FOUND, and a refusal never names the target", () =>
  withWorkspace(async (root, fx) => {
    await plantOutsideLinks(fx);
    for (const input of ["to_missing", "to_proc_missing", "dir_out/nope.ts", "../outside/nope"]) {
      const error = await assertCode(root.resolve(input), "OUTSIDE_WORKSPACE");
      assert.ok(!error.message.includes(fx.outside), error.message);
      assert.ok(!error.message.includes("nope") || input.includes("nope"), error.message);
      assert.ok(!/does not exist|cannot exist|loop|denied/.test(error.message), error.message);
    }
  }));

Deno.test("a path that leaves through /proc and comes back inside is inside", () =>
  withWorkspace(async (root, fx) => {
    assert.equal(await root.resolve(`/proc/self/root${fx.ws}/src/a.ts`), join(fx.ws, "src/a.ts"));
    const error = await assertCode(
      root.resolve(`/proc/self/root${fx.ws}/src/missing.ts`),
      "FILE_NOT_FOUND",
    );
    assert.ok(!error.message.includes(fx.outside), error.message);
  }));

// --- resolve(): URIs and odd inputs ------------------------------------------

Deno.test("resolve() accepts file:// URIs, percent-decoded", () =>
  withWorkspace(async (root, fx) => {
    const unicode = join(fx.ws, "src/ünï cödé 😀.ts");
    assert.equal(await root.resolve(`file://${fx.ws}/src/a.ts`), join(fx.ws, "src/a.ts"));
    assert.equal(await root.resolve(`file://localhost${fx.ws}/src/a.ts`), join(fx.ws, "src/a.ts"));
    assert.equal(await root.resolve(root.toUri(await root.resolve("src/ünï cödé 😀.ts"))), unicode);
    assert.equal(await root.resolveUri(root.toUri(unicode as never)), unicode);
    assert.match(root.toUri(unicode as never), /%C3%BC.*%20.*%F0%9F%98%80\.ts$/);
  }));

Deno.test("resolve() refuses percent-encoded escapes in file:// URIs", () =>
  withWorkspace(async (root, fx) => {
    await assertCode(
      root.resolve(`file://${fx.ws}/%2e%2e/outside/secret.txt`),
      "OUTSIDE_WORKSPACE",
    );
    await assertCode(
      root.resolve(`file://${fx.ws}/src/%2E%2E/%2e%2E/outside/secret.txt`),
      "OUTSIDE_WORKSPACE",
    );
    await assertCode(root.resolve(`file://${fx.ws}/..%2F..%2Foutside/secret.txt`), "INVALID_INPUT");
    await assertCode(root.resolve(`file://${fx.ws}/src%2fa.ts`), "INVALID_INPUT");
    await assertCode(root.resolve(`file://${fx.ws}/a%00.ts`), "INVALID_INPUT");
    await assertCode(root.resolve(`file://${fx.ws}/%FF.ts`), "INVALID_INPUT");
    await assertCode(root.resolve(`file://${fx.ws}\\..\\outside\\secret.txt`), "INVALID_INPUT");
    await assertCode(root.resolve(`file://${fx.ws}/src/a.ts?x=1`), "INVALID_INPUT");
    await assertCode(root.resolve("file://evil.example/share/a.ts"), "OUTSIDE_WORKSPACE");
  }));

Deno.test("resolve() refuses URIs of other schemes", () =>
  withWorkspace(async (root) => {
    for (
      const input of [
        "http://example.com/a.ts",
        "untitled:Untitled-1",
        "jdt://contents/x.class",
        "data:,x",
      ]
    ) {
      await assertCode(root.resolve(input), "INVALID_INPUT");
      await assertCode(root.resolveUri(input), "INVALID_INPUT");
    }
    await assertCode(root.resolveUri("src/a.ts"), "INVALID_INPUT");
  }));

Deno.test("resolve() refuses empty, NUL, over-long and non-string input", () =>
  withWorkspace(async (root) => {
    await assertCode(root.resolve(""), "INVALID_INPUT");
    await assertCode(root.resolve("src/a.ts\0.txt"), "INVALID_INPUT");
    await assertCode(root.resolve("a".repeat(5000)), "INVALID_INPUT");
    await assertCode(root.resolve(`${"d/".repeat(2500)}a.ts`), "INVALID_INPUT");
    await assertCode(root.resolve(`file:///${"%41".repeat(5000)}`), "INVALID_INPUT");
    for (const bad of [undefined, null, 42, {}, ["src/a.ts"]]) {
      await assertCode(root.resolve(bad as unknown as string), "INVALID_INPUT");
    }
  }));

Deno.test("resolve() maps a too-long file name to INVALID_INPUT, not a raw error", () =>
  withWorkspace(async (root) => {
    await assertCode(root.resolve(`src/${"n".repeat(300)}.ts`), "INVALID_INPUT");
    await assertCode(
      root.resolve(`${"n".repeat(300)}/x.ts`, { mustExist: false }),
      "INVALID_INPUT",
    );
  }));

Deno.test("resolve() handles a file name in unusual unicode", () =>
  withWorkspace(async (root, fx) => {
    const name = "src/\u202e\u0301zalgo\u0000".slice(0, -1) + "\u{10FFFF}\t\n.ts";
    await Deno.writeTextFile(join(fx.ws, name), "x");
    assert.equal(await root.resolve(name), join(fx.ws, name));
    assert.equal(await root.resolveUri(root.toUri(await root.resolve(name))), join(fx.ws, name));
    assert.equal(root.relative(await root.resolve(name)), name);
  }));

Deno.test("resolve() treats Windows paths as outside and backslashes as invalid", () =>
  withWorkspace(async (root) => {
    await assertCode(root.resolve("C:\\Windows\\win.ini"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("c:/Windows/win.ini"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("\\\\server\\share\\a.ts"), "OUTSIDE_WORKSPACE");
    await assertCode(root.resolve("file:///C:/Windows/win.ini"), "OUTSIDE_WORKSPACE");
    const error = await assertCode(root.resolve("src\\a.ts"), "INVALID_INPUT");
    assert.match(error.message, /backslash/);
    await assertCode(root.resolve("..\\outside\\secret.txt"), "INVALID_INPUT");
  }));

Deno.test("resolve() reads a relative name with a colon after ./", () =>
  withWorkspace(async (root, fx) => {
    await Deno.writeTextFile(join(fx.ws, "ab:c.ts"), "x");
    await assertCode(root.resolve("ab:c.ts"), "INVALID_INPUT");
    assert.equal(await root.resolve("./ab:c.ts"), join(fx.ws, "ab:c.ts"));
    assert.equal(await root.resolve(`file://${fx.ws}/ab:c.ts`), join(fx.ws, "ab:c.ts"));
    assert.equal(
      await root.resolve("src/ab:c.ts", { mustExist: false }),
      join(fx.ws, "src/ab:c.ts"),
    );
  }));

// --- read-only roots -----------------------------------------------------------

Deno.test("a read-only root is readable and never writable", () =>
  withWorkspace(async (root, fx) => {
    const std = join(fx.lib, "std.ts");
    assert.equal(await root.resolve(std), std);
    assert.equal(await root.resolve(`file://${std}`, { access: "read" }), std);
    assert.equal(await root.readText(await root.resolve(std)), "export const std = 1;\n");
    assert.equal(root.isInside(std), true);
    assert.equal(root.relative(std), std);
    const error = await assertCode(root.resolve(std, { access: "write" }), "OUTSIDE_WORKSPACE");
    assert.match(error.message, /read-only/);
    // Through a link inside, the refusal names the link, not where in the read-only root it leads.
    await Deno.symlink(std, join(fx.ws, "std_link.ts"));
    const linked = await assertCode(
      root.resolve("std_link.ts", { access: "write" }),
      "OUTSIDE_WORKSPACE",
    );
    assert.ok(!linked.message.includes(fx.lib), linked.message);
    await assertCode(
      root.resolve(join(fx.lib, "new.ts"), { access: "write", mustExist: false }),
      "OUTSIDE_WORKSPACE",
    );
    await assertCode(root.writeText(await root.resolve(std), "hacked"), "OUTSIDE_WORKSPACE");
    assert.equal(await Deno.readTextFile(std), "export const std = 1;\n");
  }, { readOnly: (fx) => [fx.lib, join(fx.base, "missing-toolchain")] }));

Deno.test("a read-only root inside the workspace stays read-only", () =>
  withWorkspace(async (root, fx) => {
    const file = join(fx.ws, "node_modules/pkg/index.ts");
    assert.equal(await root.resolve(file), file);
    await assertCode(root.resolve(file, { access: "write" }), "OUTSIDE_WORKSPACE");
    assert.equal(await root.resolve("src/a.ts", { access: "write" }), join(fx.ws, "src/a.ts"));
  }, { readOnly: (fx) => [join(fx.ws, "node_modules")] }));

Deno.test("without read-only roots, a library path is outside", () =>
  withWorkspace(async (root, fx) => {
    await assertCode(root.resolve(join(fx.lib, "std.ts")), "OUTSIDE_WORKSPACE");
  }));

// --- helpers ---------------------------------------------------------------------

Deno.test("isInside() and relative() are segment-aware", () =>
  withWorkspace((root, fx) => {
    assert.equal(root.isInside(fx.ws), true);
    assert.equal(root.isInside(join(fx.ws, "src/a.ts")), true);
    assert.equal(root.isInside(`${fx.ws}-evil`), false);
    assert.equal(root.isInside(`${fx.ws}/../outside`), false);
    assert.equal(root.isInside("src/a.ts"), false);
    assert.equal(root.relative(join(fx.ws, "src/a.ts")), "src/a.ts");
    assert.equal(root.relative(fx.ws), ".");
    assert.equal(root.relative(`${fx.ws}-evil/x.ts`), `${fx.ws}-evil/x.ts`);
    // Paths under the root that are not normalized are resolved, as node:path's relative() does.
    for (
      const rest of [
        "a/b.ts",
        ".hidden/..b/c..",
        "a/../b.ts",
        "a/./b.ts",
        "a//b.ts",
        "a/",
        "a/.",
        "..",
        "../outside.ts",
        "a/../../outside.ts",
        "/a.ts",
      ]
    ) {
      assert.equal(root.relative(`${fx.ws}/${rest}`), posix.relative(fx.ws, `${fx.ws}/${rest}`));
    }
    return Promise.resolve();
  }));
