// The shipped bundle starts its Landlock launcher and its watcher process from its companion
// (dist/lspgate_libc.js) where that lies beside it, and from itself where it was copied alone or
// the companion is another version's:
// either way `--sandbox landlock` starts deno lsp under Landlock, which answers inside the root and
// shows nothing of a file outside it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo } from "./hostile.ts";
import { buildBundle, bundleRunArgs } from "../helpers/bundle.ts";
import { Program } from "../helpers/program.ts";
import { LIBC_COMPANION } from "../../src/libc_programs.ts";

const SECRET = "OUTSIDE-CONTENTS-b7d0e2";

// A companion of another lspgate version (a bundle copied over an older dist/): its probe answers
// without this version, and it fails whatever else it is asked to be, so a server it launched
// would never answer.
const STALE_COMPANION =
  `if (Deno.args.includes("probe")) console.log('{"abi":7,"seccomp":true}');\n` +
  "else Deno.exit(3);\n";

const VARIANTS = [
  { from: "itself, copied alone", companion: false, stale: false },
  { from: "its companion file", companion: true, stale: false },
  { from: "itself, its companion another version's", companion: true, stale: true },
];

for (const { from, companion, stale } of VARIANTS) {
  Deno.test(`the bundle's Landlock launcher and watcher run from ${from}: deno lsp answers confined`, async () => {
    const repo = await hostileRepo({
      "deno.json": "{}\n",
      "inner.ts": "export function innerGreeting(name: string): string {\n  return name;\n}\n",
      "main.ts": `import { secret } from "../outside/secret.ts";\n` +
        `import { innerGreeting } from "./inner.ts";\n\n` +
        `export const got = secret;\nexport const hi = innerGreeting("x");\n`,
    });
    await Deno.writeTextFile(
      join(repo.outside, "secret.ts"),
      `export const secret = "${SECRET}";\n`,
    );
    const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-landlock-" });
    try {
      const bundle = await buildBundle(out, { companion });
      assert.deepEqual(
        [...Deno.readDirSync(out)].map((entry) => entry.name).sort(),
        companion ? ["lspgate.js", LIBC_COMPANION] : ["lspgate.js"],
      );
      if (stale) await Deno.writeTextFile(join(out, LIBC_COMPANION), STALE_COMPANION);
      // Past 1,000 folders, so that the watcher runs as a process of its own (its command line
      // shows the file it runs, as a server's launcher, gone once it is the server, cannot).
      const made = await new Deno.Command("bash", {
        args: ["-c", "mkdir -p more/d{0..10}/e{0..99}"],
        cwd: repo.root,
      }).output();
      assert.equal(made.code, 0);
      const text = await Deno.readTextFile(join(repo.root, "main.ts"));
      const lspgate = new Program(
        [
          ...bundleRunArgs(bundle),
          "--root",
          repo.root,
          "--role",
          "subagent",
          "--sandbox",
          "landlock",
        ],
        {},
        Deno.execPath(),
      );
      try {
        const hover = await lspgate.ask({
          id: 1,
          action: "hover",
          file: "main.ts",
          ...locate(text, "secret;"),
        });
        assert.equal(hover.ok, true, JSON.stringify(hover));
        const details = hover.details as Record<string, unknown>;
        assert.equal(details.sandboxBackend, "landlock");
        const definition = await lspgate.ask({
          id: 2,
          action: "definition",
          file: "main.ts",
          ...locate(text, "innerGreeting("),
        });
        assert.equal(definition.ok, true, JSON.stringify(definition));
        const at = locate(await Deno.readTextFile(join(repo.root, "inner.ts")), "innerGreeting");
        assert.deepEqual(
          (definition.details as { locations: { file: string; line: number }[] }).locations
            .map((l) => [l.file, l.line]),
          [["inner.ts", at.line]],
        );
        type Status = { sandboxBackend: string; watcher?: { runsOn: string; pid?: number } };
        let statusDetails = (await lspgate.ask({ id: 3, action: "status" })).details as Status;
        for (let id = 4, until = Date.now() + 20_000; Date.now() < until; id++) {
          if (statusDetails.watcher?.pid !== undefined) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
          statusDetails = (await lspgate.ask({ id, action: "status" })).details as Status;
        }
        assert.equal(statusDetails.sandboxBackend, "landlock");
        // The watcher process, still running, shows which file it was started from.
        assert.equal(statusDetails.watcher?.runsOn, "process", JSON.stringify(statusDetails));
        const argv = (await Deno.readTextFile(`/proc/${statusDetails.watcher?.pid}/cmdline`))
          .split("\0");
        assert.ok(
          argv.includes(companion && !stale ? join(out, LIBC_COMPANION) : bundle),
          `the watcher runs from ${from}: ${argv.join(" ")}`,
        );
      } finally {
        const { code, stderr } = await lspgate.finish();
        assert.equal(code, 0, stderr);
        assert.ok(
          !lspgate.raw.join("\n").includes(SECRET),
          `outside contents leaked:\n${lspgate.raw}`,
        );
      }
    } finally {
      await Deno.remove(repo.base, { recursive: true });
      await Deno.remove(out, { recursive: true });
    }
  });
}
