// The README's install commands (deno install -g; the npm package from its tarball), the
// `lspgate` commands it gives, and the bundle run from a folder that is not the checkout.
import assert from "node:assert/strict";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import {
  CHECKOUT,
  DEFINITION,
  greet,
  installLspgate,
  jsonLinesRule,
  mcpAnswers,
  ok,
  type Rule,
} from "./reader.ts";

const plain = (text: string) => stripVTControlCharacters(text);

/** The rules for lspgate's own install and commands. */
export const LSPGATE_RULES: Rule[] = [
  {
    pattern:
      /^deno install -g -f -n lspgate --config \/path\/to\/lspgate\/deno\.json .*\/path\/to\/lspgate\/mod\.ts$/,
    async run(scene) {
      await installLspgate(scene);
      // The installed command carries `deno task start`'s grant, no more.
      const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      const start = (tasks.start as string).split(" ");
      const grant = start.slice(2, start.indexOf("mod.ts"));
      const given = scene.filled.split(" ");
      assert.deepEqual(
        given.filter((w) => w.startsWith("--allow") || w.startsWith("--v8")).sort(),
        grant.sort(),
        "the install command's grant is deno task start's",
      );
    },
  },
  {
    // The parsers' WebAssembly cached ahead, as the README's install does next (no registry later).
    pattern:
      /^deno cache --config \/path\/to\/lspgate\/deno\.json \/path\/to\/lspgate\/src\/syntax\/grammar_sources\.ts$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.reader.home });
      assert.equal(ran.code, 0, ran.stderr);
    },
  },
  {
    pattern: /^lspgate --help$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.reader.home });
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /lspgate call/);
      assert.match(ran.stdout, /lspgate mcp/);
    },
  },
  {
    pattern: /^lspgate call (definition|hover) file=src\/main\.ts line=\d+ symbol=\w+$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.cwd });
      assert.equal(ran.code, 0, `${scene.filled}\n${ran.stderr}`);
      if (scene.filled.includes(" definition ")) {
        const at = await greet(scene.ws);
        assert.match(ran.stdout, new RegExp(`src/greet\\.ts:${at.line}:${at.column}`));
      } else {
        assert.match(ran.stdout, /report\(title: string, shapes: Shape\[\]\): string/);
      }
    },
  },
  {
    pattern: /^lspgate daemon (start|status|stop)$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.cwd });
      assert.equal(ran.code, 0, `${scene.filled}\n${ran.stdout}\n${ran.stderr}`);
      if (scene.filled.endsWith("status")) {
        assert.match(plain(ran.stdout + ran.stderr), /running|pid/i);
      }
    },
  },
  {
    pattern: /^lspgate mcp( --daemon)?$/,
    lang: "sh",
    async run(scene) {
      await installLspgate(scene);
      await mcpAnswers(scene, scene.filled, scene.cwd);
    },
  },
  {
    ...jsonLinesRule(/^lspgate --role subagent$/, false),
    async run(scene, command) {
      await installLspgate(scene);
      await jsonLinesRule(/./, false).run!(scene, command);
    },
  },
  // The npm package: packed by its task, installed from the tarball into the reader's own npm
  // prefix (npm's cache serves the deno package), then `lspgate` is npm's.
  {
    pattern: /^npx -y deno@2 task pack$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      const { version } = JSON.parse(
        await Deno.readTextFile(join(CHECKOUT, "integrations", "npm", "package.json")),
      );
      assert.ok(await Deno.stat(join(CHECKOUT, "dist", `lspgate-${version}.tgz`)));
    },
  },
  {
    pattern: /^npm install -g \/path\/to\/lspgate\/dist\/lspgate-[\d.]+\.tgz$/,
    async run(scene) {
      const prefix = join(scene.reader.home, ".npm-global");
      scene.reader.extraPath.unshift(join(prefix, "bin"));
      const ran = await scene.reader.sh(scene.filled, {
        cwd: scene.reader.home,
        // Both spellings: under `npx … task test` npx passes its own npm_config_prefix down,
        // which npm reads before NPM_CONFIG_PREFIX (the tarball then went to npx's global prefix).
        env: {
          NPM_CONFIG_PREFIX: prefix,
          npm_config_prefix: prefix,
          NPM_CONFIG_PREFER_OFFLINE: "true",
        },
      });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
      const which = await scene.reader.sh("command -v lspgate", { cwd: scene.ws.root });
      assert.equal(which.stdout.trim(), join(prefix, "bin", "lspgate"));
      // Its grant is the start task's (plus the bundle's Worker flag), its variables expanded as
      // deno task expands them, no more.
      const installed = join(prefix, "lib", "node_modules", "lspgate", "bin", "lspgate.mjs");
      const bin = await import(new URL(`file://${installed}`).href);
      assert.equal(
        bin.expand("--allow-write=$XDG_RUNTIME_DIR/lspgate,/tmp/lspgate-${USER}", {
          XDG_RUNTIME_DIR: "/run/user/7",
          USER: "me",
        }),
        "--allow-write=/run/user/7/lspgate,/tmp/lspgate-me",
      );
      // Unset, a variable is empty, as deno task and lspgate's own runtime folder name take it.
      assert.equal(
        bin.expand(
          "--allow-net=unix:$XDG_RUNTIME_DIR/lspgate/daemon.sock,unix:/tmp/lspgate-$USER/x",
          {},
        ),
        "--allow-net=unix:/lspgate/daemon.sock,unix:/tmp/lspgate-/x",
      );
      const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      const start = (tasks.start as string).split(" ");
      const env = scene.reader.env();
      assert.deepEqual(bin.grant(env), [
        "--unstable-worker-options",
        ...start.slice(2, start.indexOf("mod.ts")).map((flag) => bin.expand(flag, env)),
      ]);
      await mcpAnswers(scene, "lspgate mcp", scene.ws.root);
    },
  },
  {
    pattern: /^lspgate --version$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stderr);
      const { version } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      assert.equal(ran.stdout.trim(), `lspgate ${version}`);
    },
  },
  // The bundle, built by its task, then run from a folder that is not the checkout.
  {
    pattern: /^deno task bundle$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      const elsewhere = join(scene.reader.home, "shipped");
      await Deno.mkdir(join(elsewhere, "dist"), { recursive: true });
      // dist/ as shipped: the bundle and the parsers beside it.
      await Deno.copyFile(
        join(CHECKOUT, "dist", "lspgate.js"),
        join(elsewhere, "dist", "lspgate.js"),
      );
      await Deno.mkdir(join(elsewhere, "dist", "parsers"));
      for await (const entry of Deno.readDir(join(CHECKOUT, "dist", "parsers"))) {
        await Deno.copyFile(
          join(CHECKOUT, "dist", "parsers", entry.name),
          join(elsewhere, "dist", "parsers", entry.name),
        );
      }
      // A tools folder above a bundle copied elsewhere is not lspgate's: never searched.
      await Deno.mkdir(join(elsewhere, ".lspgate", "tools", "bin"), { recursive: true });
      scene.notes.set("bundle", elsewhere);
    },
  },
  {
    pattern:
      /^deno run --unstable-worker-options (\S+ )+dist\/lspgate\.js --root \/path\/to\/project$/,
    async run(scene) {
      // The bundle runs under the start task's grant, no more.
      const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      const start = (tasks.start as string).split(" ");
      const words = scene.filled.split(" ");
      assert.deepEqual(
        words.slice(2, words.indexOf("dist/lspgate.js")),
        ["--unstable-worker-options", ...start.slice(2, start.indexOf("mod.ts"))],
      );
      const elsewhere = scene.notes.get("bundle") as string;
      // A server installed nowhere here, planted where a copied bundle's parent would hold tools.
      const decoy = join(elsewhere, ".lspgate", "tools", "bin", "marksman");
      await Deno.writeTextFile(decoy, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
      // Ruby has no server here: its outline comes from the parser the bundle carries.
      await scene.ws.write("shop.rb", "class Shop\n  def open\n    true\n  end\nend\n");
      const answers = await scene.reader.jsonLines(scene.filled, elsewhere, [
        DEFINITION,
        { id: 2, action: "servers" },
        { id: 3, action: "symbols", file: "shop.rb" },
      ], { NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/" });
      assert.deepEqual(ok(answers.get(1)).locations, [await greet(scene.ws)]);
      const adapters = ok(answers.get(2)).adapters as { id: string; command?: string }[];
      const marksman = adapters.find((a) => a.id === "marksman");
      assert.ok(marksman, "marksman is a shipped adapter");
      assert.ok(!String(marksman.command ?? "").startsWith(elsewhere), JSON.stringify(marksman));
      const outline = ok(answers.get(3));
      assert.equal(outline.syntaxOnly, true);
      assert.deepEqual(
        (outline.symbols as { name: string }[]).map((s) => s.name),
        ["Shop", "open"],
      );
    },
  },
];
