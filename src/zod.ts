// The schemas of agent input and of lspgate's own files are zod's small build (`zod/mini`): the
// same checks and the same messages as its full API, but functions rather than methods, so a
// bundle need not evaluate the full API at start. Measured as `deno bundle --minify` files of
// their own: the full API is 454 KB, ~+50 ms at every start and +13 MiB resident; the small one
// 16 KB, ~+8 ms and +3 MiB. In lspgate's bundle the MCP front end keeps the full API (the SDK
// loads it anyway), and since the SDK takes zod's namespaces whole, the core this build shares
// with it, locales included, is still evaluated at start (see README, Performance).
//
// The small build chooses no language for its messages: English is set here, once, so every
// module that validates imports this one rather than "zod/mini".
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());

export * from "zod/mini";
