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
