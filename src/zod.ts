// The schemas of agent input and of lspgate's own files are zod's small build (`zod/mini`): the
// same checks and the same messages as its full API, but functions rather than methods, so a
// bundle keeps only the ones used. Measured as `deno bundle --minify` files: the full API is 454
// KB, ~+50 ms at every start and +13 MiB resident; the small one 16 KB, ~+8 ms and +3 MiB. (The MCP
// front end keeps the full API: the SDK loads it anyway.)
//
// The small build chooses no language for its messages: English is set here, once, so every
// module that validates imports this one rather than "zod/mini".
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());

export * from "zod/mini";
