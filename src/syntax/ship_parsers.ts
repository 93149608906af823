// `deno task bundle`'s second step: copies the WebAssembly parsers (tree-sitter's runtime and each
// grammar, the versions of loader.ts's WASM_FILES) from Deno's npm cache into the folder beside
// the bundle (`dist/parsers/`), where the bundle loads them: it carries its parsers, and asks no
// registry for them at first use. deno.json's bundle task runs it.
import { join } from "../posix_path.ts";
import { shippedName, WASM_FILES } from "./loader.ts";

const target = Deno.args[0];
if (!target) throw new Error("usage: ship_parsers.ts FOLDER");
const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
await Deno.mkdir(target, { recursive: true });
for (const [name, specifier] of Object.entries(WASM_FILES)) {
  // npm:<package>@<version>/<file>, the package possibly scoped.
  const match = specifier.match(/^npm:(@?[^@]+)@([^/]+)\/(.+)$/);
  if (!match) throw new Error(`not an npm file: ${specifier}`);
  const [, pkg, version, file] = match;
  const cached = join(denoDir, "npm", "registry.npmjs.org", pkg, version, file);
  if (!(await Deno.stat(cached).then(() => true, () => false))) {
    // deno.json imports every grammar package: `deno install` puts them in the cache.
    await new Deno.Command(Deno.execPath(), { args: ["install"], stdout: "null" }).output();
  }
  try {
    await Deno.copyFile(cached, join(target, shippedName(name as keyof typeof WASM_FILES)));
  } catch (error) {
    throw new Error(
      `${specifier} is not in Deno's npm cache (${cached}): run \`deno install\` in lspgate's ` +
        `checkout first (${error instanceof Error ? error.message : error})`,
    );
  }
}
console.error(`lspgate: ${Object.keys(WASM_FILES).length} parsers copied into ${target}`);
