import assert from "node:assert/strict";
import { join } from "node:path";
import { toFileUrl } from "./servers/uri.ts";
import { LIBC_COMPANION, libcProgramScript, refuseCompanion } from "./libc_programs.ts";

const ARG = "--as-this-program";

Deno.test("a libc program runs from its source module, the bundle's companion, or the bundle", async () => {
  const dist = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-libc-programs-" }));
  try {
    const bundle = join(dist, "lspgate.js");
    await Deno.writeTextFile(bundle, "// the bundle\n");
    const caller = new URL(toFileUrl(bundle));
    const source = new URL("file:///checkout/src/servers/inotify_watch.ts");
    // From source: the program's own module, no argument needed.
    assert.deepEqual(libcProgramScript(caller, source, ARG), [
      "/checkout/src/servers/inotify_watch.ts",
    ]);
    // A bundle copied alone is the program itself.
    assert.deepEqual(libcProgramScript(caller, undefined, ARG), [bundle, ARG]);
    // A folder of that name is not the companion.
    await Deno.mkdir(join(dist, LIBC_COMPANION));
    assert.deepEqual(libcProgramScript(caller, undefined, ARG), [bundle, ARG]);
    await Deno.remove(join(dist, LIBC_COMPANION));
    // The companion beside the bundle, as `deno task bundle` writes it.
    await Deno.writeTextFile(join(dist, LIBC_COMPANION), "// the companion\n");
    assert.deepEqual(libcProgramScript(caller, undefined, ARG), [join(dist, LIBC_COMPANION), ARG]);
    // Refused (Landlock's probe found it another version's): the bundle again, from then on.
    assert.equal(refuseCompanion(), true);
    assert.equal(refuseCompanion(), false);
    assert.deepEqual(libcProgramScript(caller, undefined, ARG), [bundle, ARG]);
    // A bundle run from a URL that is not a file has no folder to look in.
    const remote = new URL("https://example.invalid/lspgate.js");
    assert.deepEqual(libcProgramScript(remote, undefined, ARG), [remote.href, ARG]);
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});
