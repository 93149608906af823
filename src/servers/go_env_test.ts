import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { goSetup } from "./go_env.ts";

const NAMES = [
  "HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "GOENV",
  "GOFLAGS",
  "GOPATH",
  "GOMODCACHE",
];

/** Runs `fn` with the environment's Go variables replaced by `values` (the rest unset). */
async function withEnv(values: Record<string, string>, fn: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(NAMES.map((name) => [name, Deno.env.get(name)]));
  try {
    for (const name of NAMES) {
      if (values[name] === undefined) Deno.env.delete(name);
      else Deno.env.set(name, values[name]);
    }
    await fn();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test("goSetup() shows gopls its file cache for this binary and goimports' index read-only, and keeps go's build cache private", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_goenv_" }));
  try {
    const gopls = join(home, "gopls");
    await Deno.writeTextFile(gopls, "a gopls binary");
    const hash = createHash("sha256").update("a gopls binary").digest("hex").slice(0, 8);
    await Deno.mkdir(join(home, ".cache", "gopls", hash), { recursive: true });
    // Another gopls version's cache is not shown.
    await Deno.mkdir(join(home, ".cache", "gopls", "00000000"), { recursive: true });
    await Deno.mkdir(join(home, ".cache", "goimports"), { recursive: true });
    await Deno.mkdir(join(home, "go", "pkg", "mod"), { recursive: true });
    // `go env -w GOFLAGS=...` wrote the user's flags here.
    await Deno.mkdir(join(home, ".config", "go"), { recursive: true });
    await Deno.writeTextFile(join(home, ".config", "go", "env"), "GOFLAGS=-buildvcs=false\n");
    await withEnv({ HOME: home }, async () => {
      const setup = await goSetup("/usr/local/go", gopls);
      assert.deepEqual(setup.readOnlyPaths, [
        "/usr/local/go",
        join(home, "go", "pkg", "mod"),
        join(home, ".cache", "gopls", hash),
        join(home, ".cache", "goimports"),
      ]);
      assert.deepEqual(setup.env, {
        GOROOT: "/usr/local/go",
        GOMODCACHE: join(home, "go", "pkg", "mod"),
        GOFLAGS: "-buildvcs=false",
        XDG_CACHE_HOME: join(home, ".cache"),
      });
      // The go commands gopls runs fall back to HOME/.cache: the sandbox's private HOME.
      assert.deepEqual(setup.settings, { env: { XDG_CACHE_HOME: "" } });
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("goSetup() without gopls caches leaves the cache folder alone; GOMODCACHE from the environment wins", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_goenv_" }));
  try {
    await Deno.writeTextFile(join(home, "gopls"), "a gopls binary");
    await withEnv({ HOME: home, GOMODCACHE: join(home, "mods") }, async () => {
      const setup = await goSetup("/usr/lib/go", join(home, "gopls"));
      // The module cache does not exist yet: not shown, but named for the server.
      assert.deepEqual(setup.readOnlyPaths, ["/usr/lib/go"]);
      assert.deepEqual(setup.env, { GOROOT: "/usr/lib/go", GOMODCACHE: join(home, "mods") });
      assert.equal(setup.settings, undefined);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/**
 * goSetup()'s read-only paths as a new lspgate process finds them: `env` its environment, `grant`
 * its Deno permissions.
 */
async function readOnlyPathsInProcess(
  gopls: string,
  env: Record<string, string> & { HOME: string },
  grant = ["--allow-all"],
) {
  const script = join(env.HOME, "setup.ts");
  const goEnv = JSON.stringify(import.meta.resolve("./go_env.ts"));
  await Deno.writeTextFile(
    script,
    `const { goSetup } = await import(${goEnv});\n` +
      `const setup = await goSetup("/usr/local/go", ${JSON.stringify(gopls)});\n` +
      "console.log(JSON.stringify(setup.readOnlyPaths));\n",
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...grant, script],
    env: { PATH: Deno.env.get("PATH") ?? "", ...env },
    clearEnv: true,
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as string[];
}

Deno.test("goSetup() remembers a gopls binary's hash in the runtime folder: a later process takes it from there; a binary installed since, a damaged file, a planted symlink or no write grant: hashed, nothing written", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_goenv_" }));
  try {
    const gopls = join(home, "gopls");
    await Deno.writeTextFile(gopls, "a gopls binary");
    const hash = createHash("sha256").update("a gopls binary").digest("hex").slice(0, 8);
    const cache = join(home, ".cache", "gopls");
    await Deno.mkdir(join(cache, hash), { recursive: true });
    await Deno.mkdir(join(cache, "00000000"), { recursive: true });
    const env = { HOME: home, XDG_RUNTIME_DIR: join(home, "run"), USER: "someone" };
    await Deno.mkdir(env.XDG_RUNTIME_DIR);
    // Without a write grant on the runtime folder: hashed, and nothing written there.
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env, ["--allow-read", "--allow-env"]), [
      "/usr/local/go",
      join(cache, hash),
    ]);
    assert.deepEqual([...Deno.readDirSync(env.XDG_RUNTIME_DIR)], []);
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env), [
      "/usr/local/go",
      join(cache, hash),
    ]);
    const file = join(env.XDG_RUNTIME_DIR, "lspgate", "gopls-hashes.json");
    const remembered = JSON.parse(await Deno.readTextFile(file)) as Record<string, string>;
    assert.deepEqual(Object.values(remembered), [hash]);
    // What the file says is what the next process uses, without reading the binary: told another
    // hash for this very binary, it shows that folder.
    const [key] = Object.keys(remembered);
    await Deno.writeTextFile(file, JSON.stringify({ [key]: "00000000" }));
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env), [
      "/usr/local/go",
      join(cache, "00000000"),
    ]);
    // The binary replaced as `go install` does (a new file renamed over it), with the same size and
    // mtime: another inode, so it is hashed again.
    const { mtime } = await Deno.stat(gopls);
    await Deno.writeTextFile(gopls + ".new", "b gopls binary");
    await Deno.utime(gopls + ".new", mtime!, mtime!);
    await Deno.rename(gopls + ".new", gopls);
    const newHash = createHash("sha256").update("b gopls binary").digest("hex").slice(0, 8);
    await Deno.mkdir(join(cache, newHash));
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env), [
      "/usr/local/go",
      join(cache, newHash),
    ]);
    // A damaged file is no answer: the binary is hashed.
    await Deno.writeTextFile(file, "{not json");
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env), [
      "/usr/local/go",
      join(cache, newHash),
    ]);
    // A symlink planted at the file is neither read nor written through: the binary is hashed, the
    // link's target untouched.
    const [newKey] = Object.keys(JSON.parse(await Deno.readTextFile(file)));
    const victim = join(home, "victim.json");
    const planted = JSON.stringify({ [newKey]: "00000000" });
    await Deno.writeTextFile(victim, planted);
    await Deno.remove(file);
    await Deno.symlink(victim, file);
    assert.deepEqual(await readOnlyPathsInProcess(gopls, env), [
      "/usr/local/go",
      join(cache, newHash),
    ]);
    assert.equal(await Deno.readTextFile(victim), planted);
    assert.ok((await Deno.lstat(file)).isSymlink);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
