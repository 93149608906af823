import type { Adapter } from "../src/servers/adapter.ts";
import { biomeAdapter } from "./biome.ts";
import { denoAdapter } from "./deno.ts";
import { pyrightAdapter } from "./pyright.ts";
import { typescriptAdapter } from "./typescript.ts";

export { biomeAdapter, denoAdapter, pyrightAdapter, typescriptAdapter };

/** Every adapter lspgate ships, in no particular order (priority and markers decide). */
export const ADAPTERS: readonly Adapter[] = [
  denoAdapter,
  typescriptAdapter,
  pyrightAdapter,
  biomeAdapter,
];
