/// <reference lib="deno.worker" />
// The parse Worker's entry when lspgate runs from source: its module graph is the parsers' alone,
// so starting it loads (and, under `deno test`, type-checks) nothing of the rest of lspgate. In
// the bundle every module is the bundle, whose entry (src/worker_entry.ts) serves it by name.
import { serveSyntaxWorker } from "./pool_worker.ts";

serveSyntaxWorker();
