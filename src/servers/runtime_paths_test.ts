import assert from "node:assert/strict";
import { join } from "node:path";
import { pyenvTarget, runtimeOf } from "./runtime_paths.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_runtime_" }));
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(base, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(base, rel), text.replaceAll("$BASE", base));
    await Deno.chmod(join(base, rel), 0o755);
  }
  return base;
}

Deno.test("runtimeOf() shows a venv script its venv and the Python the venv was made from", async () => {
  const base = await tree({
    "python/bin/python3.11": "\x7fELF",
    "venv/pyvenv.cfg": "home = $BASE/python/bin\n",
    "venv/bin/server": "#!$BASE/venv/bin/python3\nimport server\n",
  });
  try {
    await Deno.symlink(join(base, "python/bin/python3.11"), join(base, "venv/bin/python3"));
    const runtime = await runtimeOf(join(base, "venv/bin/server"), "/nonexistent-workspace");
    assert.deepEqual(runtime.paths.slice(0, 2), [join(base, "venv"), join(base, "python")]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("runtimeOf() follows `#!/usr/bin/env node` on PATH to nvm's node and shows its installation", async () => {
  const base = await tree({
    "nvm/versions/node/v20.1.0/bin/node": "\x7fELF",
    "pkg/server.js": "#!/usr/bin/env node\nrequire('x');\n",
  });
  const path = Deno.env.get("PATH");
  try {
    Deno.env.set("PATH", `${join(base, "nvm/versions/node/v20.1.0/bin")}:${path}`);
    const runtime = await runtimeOf(join(base, "pkg/server.js"), "/nonexistent-workspace");
    assert.deepEqual(runtime.paths, [join(base, "nvm/versions/node/v20.1.0")]);
  } finally {
    if (path !== undefined) Deno.env.set("PATH", path);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("runtimeOf() of a binary is nothing; an interpreter under /usr needs no binding", async () => {
  const base = await tree({ "bin/server": "\x7fELF", "sh/server": "#!/bin/sh\nexit 0\n" });
  try {
    assert.deepEqual((await runtimeOf(join(base, "bin/server"), "/x")).paths, []);
    assert.deepEqual((await runtimeOf(join(base, "sh/server"), "/x")).paths, []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("pyenvTarget() maps a pyenv shim to the global version's interpreter, and `system` to none", async () => {
  const base = await tree({
    "pyenv/shims/python3": "#!/usr/bin/env bash\nexec pyenv exec python3\n",
    "pyenv/versions/3.11.7/bin/python3": "\x7fELF",
    "pyenv/version": "3.11.7\n",
  });
  const saved = Deno.env.get("PYENV_VERSION");
  try {
    Deno.env.delete("PYENV_VERSION");
    assert.equal(
      await pyenvTarget(join(base, "pyenv/shims/python3")),
      join(base, "pyenv/versions/3.11.7/bin/python3"),
    );
    await Deno.writeTextFile(join(base, "pyenv/version"), "system\n");
    assert.equal(await pyenvTarget(join(base, "pyenv/shims/python3")), undefined);
  } finally {
    if (saved !== undefined) Deno.env.set("PYENV_VERSION", saved);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("runtimeOf() never shows a home folder whole: an interpreter linked from HOME shows only its own installation", async () => {
  const base = await tree({
    "home/.ssh/id_ed25519": "secret",
    "opt/node-v20/bin/node": "\x7fELF",
    "pkg/server.js": "#!/usr/bin/env node\n",
  });
  const saved = { PATH: Deno.env.get("PATH"), HOME: Deno.env.get("HOME") };
  try {
    // The user's PATH starts with HOME itself, where `node` links to the real one.
    await Deno.symlink(join(base, "opt/node-v20/bin/node"), join(base, "home/node"));
    Deno.env.set("HOME", join(base, "home"));
    Deno.env.set("PATH", `${join(base, "home")}:${saved.PATH}`);
    const runtime = await runtimeOf(join(base, "pkg/server.js"), "/nonexistent-workspace");
    assert.deepEqual(runtime.paths, [join(base, "opt/node-v20")]);
    // Found inside through PATH's last folder, the real one's, since HOME is not there.
    assert.equal(
      runtime.env.PATH,
      `${join(base, "home")}:${saved.PATH}:${join(base, "opt/node-v20/bin")}`,
    );
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value !== undefined) Deno.env.set(name, value);
    }
    await Deno.remove(base, { recursive: true });
  }
});
