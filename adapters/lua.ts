import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** lua-language-server (LuaLS). Untested here: written from its documentation. */
export const luaAdapter = refusingProjectCode(
  commandAdapter({
    id: "lua",
    tested: false,
    command: ["lua-language-server"],
    languages: { ".lua": "lua" },
    rootMarkers: [".luarc.json", ".luarc.jsonc", ".luacheckrc", ".stylua.toml", "stylua.toml"],
    installHint: "Install lua-language-server so it is on PATH " +
      "(e.g. `brew install lua-language-server`, or a release archive's bin/).",
    settings: { Lua: { telemetry: { enable: false } } },
  }),
  // A `runtime.plugin` is Lua the server runs on every file it reads.
  { files: /^\.luarc\.jsonc?$/, naming: /plugin/, what: "runs the Lua plugin a .luarc.json names" },
);
