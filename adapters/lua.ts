import { commandAdapter } from "../src/servers/command_adapter.ts";

/** lua-language-server (LuaLS). Untested here: written from its documentation. */
export const luaAdapter = commandAdapter({
  id: "lua",
  tested: false,
  command: ["lua-language-server"],
  languages: { ".lua": "lua" },
  rootMarkers: [".luarc.json", ".luarc.jsonc", ".luacheckrc", ".stylua.toml", "stylua.toml"],
  installHint: "Install lua-language-server so it is on PATH " +
    "(e.g. `brew install lua-language-server`, or a release archive's bin/).",
  settings: { Lua: { telemetry: { enable: false } } },
});
