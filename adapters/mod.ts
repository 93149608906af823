import type { Adapter } from "../src/servers/adapter.ts";
import { withRuntime } from "../src/servers/runtime_paths.ts";
import { astroAdapter } from "./astro.ts";
import { basedpyrightAdapter } from "./basedpyright.ts";
import { bashAdapter } from "./bash.ts";
import { biomeAdapter } from "./biome.ts";
import { clangdAdapter } from "./clangd.ts";
import { csharpAdapter } from "./csharp.ts";
import { cssAdapter } from "./css.ts";
import { dartAdapter } from "./dart.ts";
import { denoAdapter } from "./deno.ts";
import { dockerfileAdapter } from "./dockerfile.ts";
import { elixirAdapter } from "./elixir.ts";
import { goplsAdapter } from "./gopls.ts";
import { haskellAdapter } from "./haskell.ts";
import { htmlAdapter } from "./html.ts";
import { intelephenseAdapter } from "./intelephense.ts";
import { jdtlsAdapter } from "./jdtls.ts";
import { jsonAdapter } from "./json.ts";
import { kotlinAdapter } from "./kotlin.ts";
import { luaAdapter } from "./lua.ts";
import { marksmanAdapter } from "./marksman.ts";
import { ocamlAdapter } from "./ocaml.ts";
import { pyrightAdapter } from "./pyright.ts";
import { rubyLspAdapter, solargraphAdapter } from "./ruby_lsp.ts";
import { ruffAdapter } from "./ruff.ts";
import { rustAnalyzerAdapter } from "./rust_analyzer.ts";
import { sourcekitAdapter } from "./sourcekit.ts";
import { svelteAdapter } from "./svelte.ts";
import { terraformAdapter } from "./terraform.ts";
import { typescriptAdapter } from "./typescript.ts";
import { vueAdapter } from "./vue.ts";
import { yamlAdapter } from "./yaml.ts";
import { zlsAdapter } from "./zls.ts";

export {
  basedpyrightAdapter,
  bashAdapter,
  biomeAdapter,
  cssAdapter,
  denoAdapter,
  dockerfileAdapter,
  htmlAdapter,
  jsonAdapter,
  pyrightAdapter,
  ruffAdapter,
  typescriptAdapter,
  yamlAdapter,
};

/**
 * Every adapter lspgate ships, in no particular order (priority and markers decide); each found
 * program's interpreter and its installation are shown to it in the sandbox (runtime_paths.ts).
 */
export const ADAPTERS: readonly Adapter[] = ([
  denoAdapter,
  typescriptAdapter,
  pyrightAdapter,
  biomeAdapter,
  // Tested against the real server (tests/integration, the conformance suite).
  basedpyrightAdapter,
  ruffAdapter,
  bashAdapter,
  jsonAdapter,
  cssAdapter,
  htmlAdapter,
  yamlAdapter,
  dockerfileAdapter,
  clangdAdapter,
  goplsAdapter,
  rustAnalyzerAdapter,
  // Data only, written from each server's documentation (`tested: false`).
  jdtlsAdapter,
  kotlinAdapter,
  sourcekitAdapter,
  dartAdapter,
  zlsAdapter,
  luaAdapter,
  rubyLspAdapter,
  solargraphAdapter,
  intelephenseAdapter,
  csharpAdapter,
  elixirAdapter,
  haskellAdapter,
  ocamlAdapter,
  vueAdapter,
  svelteAdapter,
  astroAdapter,
  terraformAdapter,
  marksmanAdapter,
] as Adapter[]).map(withRuntime);
