// `deno task test`: installs the language servers the tests need if they are missing, then runs
// `deno test` with them on PATH. Extra arguments go to `deno test` (e.g. a file or --filter).
import {
  ensureBubblewrap,
  ensureNativeServers,
  ensureServers,
  ensureTypeScript7,
  TOOLS_BIN,
} from "./tools.ts";

const servers = await ensureServers();
// TypeScript 7 is a user-installed server like the others: on PATH (a project's own runs only for
// a trusted root).
const path = `${servers}:${await ensureTypeScript7()}/.bin`;
await ensureBubblewrap(path);
// clangd, gopls, rust-analyzer: a server that cannot be had here is said now, and its
// conformance row fails saying why.
await ensureNativeServers();
const test = await new Deno.Command(Deno.execPath(), {
  args: ["test", "--allow-all", ...Deno.args],
  // call and hook start a workspace daemon by default; tests of other things use none (each temp
  // workspace would leave one running for its idle time). The daemon's own tests turn it on.
  env: { PATH: `${path}:${TOOLS_BIN}`, LSPGATE_NO_DAEMON: "1" },
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(test.code);
