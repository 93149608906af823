import type { Adapter } from "../src/servers/adapter.ts";
import { biomeAdapter } from "./biome.ts";
import { clangdAdapter } from "./clangd.ts";
import { denoAdapter } from "./deno.ts";
import { goplsAdapter } from "./gopls.ts";
import { pyrightAdapter } from "./pyright.ts";
import { rustAnalyzerAdapter } from "./rust_analyzer.ts";
import { typescriptAdapter } from "./typescript.ts";

export { biomeAdapter, denoAdapter, pyrightAdapter, typescriptAdapter };

/** Every adapter lspgate ships, in no particular order (priority and markers decide). */
export const ADAPTERS: readonly Adapter[] = [
  denoAdapter,
  typescriptAdapter,
  pyrightAdapter,
  biomeAdapter,
  clangdAdapter,
  goplsAdapter,
  rustAnalyzerAdapter,
];
