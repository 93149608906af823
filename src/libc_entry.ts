// The bundle's companion (`deno task bundle` writes it as dist/lspgate_libc.js): the Landlock
// launcher and the inotify watcher process without the rest of lspgate, so that Deno loads ~20 KB
// rather than the whole bundle for each (see src/libc_programs.ts). Started with the argument the
// bundle itself answers to as either program.
import { launch, LAUNCH_ARG } from "./lsp/sandbox/landlock_launcher.ts";
import { INOTIFY_ARG, watchWithInotify } from "./servers/inotify_watch.ts";

if (import.meta.main) {
  if (Deno.args[0] === LAUNCH_ARG) launch(Deno.args.slice(1));
  else if (Deno.args[0] === INOTIFY_ARG) watchWithInotify(Deno.args.slice(1));
  else {
    console.error(`usage: lspgate_libc.js ${LAUNCH_ARG} … | ${INOTIFY_ARG} …`);
    Deno.exit(2);
  }
}
