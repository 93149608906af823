// What mod.ts exports as a library and the program loads only when it serves in-process.
export { Session } from "./session.ts";
export { ADAPTERS } from "../adapters/mod.ts";
export { defaultConfig, loadConfig } from "./config.ts";
export { ACTIONS } from "./actions/table.ts";
