import config from "../deno.json" with { type: "json" };

/** lspgate's version: the `version` of its deno.json, the one place it is written. */
export const VERSION: string = config.version;
