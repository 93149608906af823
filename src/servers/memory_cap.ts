// A server's own memory cap (`servers.<id>.memoryCapMiB` in the user's config): the kernel's data
// limit (RLIMIT_DATA: a process's private writable memory, which is where a language server's heap
// grows), set by a shell that then becomes the server, inside the sandbox or without one. Each of
// the server's processes inherits it: a runaway one fails to allocate and ends (node: SIGSEGV or
// "heap out of memory"; Go: "out of memory"), and the next question starts it again. The memory
// budget (budget.ts) stops idle servers by their measured size; a cap stops a busy one growing.
import type { ServerCommand } from "./adapter.ts";

/** The shell that sets the limit and execs the server: a system program every sandbox shows. */
export const CAP_SHELL = "/bin/sh";

/** `command` run under a data limit of `mib` MiB. */
export async function withMemoryCap(command: ServerCommand, mib: number): Promise<ServerCommand> {
  const [program, ...args] = command.command;
  // By its real path, as the sandbox shows programs (a link may lead out of what it binds).
  const real = await Deno.realPath(program).catch(() => program);
  return {
    ...command,
    command: [CAP_SHELL, "-c", `ulimit -d ${mib * 1024} && exec "$0" "$@"`, real, ...args],
  };
}
