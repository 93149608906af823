import type { Adapter } from "../src/servers/adapter.ts";
import { denoAdapter } from "./deno.ts";
import { pyrightAdapter } from "./pyright.ts";
import { typescriptAdapter } from "./typescript.ts";

export { denoAdapter, pyrightAdapter, typescriptAdapter };

/** Every adapter lspgate ships, in no particular order (priority and markers decide). */
export const ADAPTERS: readonly Adapter[] = [denoAdapter, typescriptAdapter, pyrightAdapter];
