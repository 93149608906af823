import { dirname, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { ADAPTERS } from "../../adapters/mod.ts";
import { toLspGateError } from "../errors.ts";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import { onPath, realPath } from "../servers/find_binary.ts";
import type { GlobalFlags } from "./main.ts";

/** The Deno permissions one lspgate run needs, as lists (for flags and deno.json). */
export interface DenoPermissions {
  read: string[];
  write: string[];
  run: string[];
  env: string[];
  notes: string[];
}

/** Environment variables lspgate reads itself (servers inherit the rest without a grant). */
const ENV_READ = ["PATH", "HOME", "NO_COLOR", "LSPGATE_NO_BWRAP"];

/**
 * Works out the narrowest Deno permissions for this workspace and config: read on the root, the
 * read-only roots, the servers' install folders and PATH (to find them); run on the server
 * binaries found (and bwrap when sandboxed); write on the root only with mutations; no net.
 */
export async function neededPermissions(flags: GlobalFlags): Promise<DenoPermissions> {
  const workspace = await WorkspaceRoot.open(flags.root, {
    readOnlyRoots: flags.config.readOnlyRoots,
  });
  const read = new Set<string>([workspace.path, ...workspace.readOnlyRoots]);
  const run = new Set<string>();
  const notes: string[] = [];
  // PATH folders are read to find servers and bwrap; the project's own node_modules/.bin is inside.
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) if (dir) read.add(dir);
  for (const adapter of ADAPTERS) {
    try {
      const command = await adapter.resolve({
        root: workspace.path,
        workspace: workspace.path,
        configuredCommand: flags.config.servers[adapter.id]?.command,
      });
      run.add(command.command[0]);
      const real = await realPath(command.command[0]);
      if (real !== command.command[0]) run.add(real);
      if (command.installDir) read.add(command.installDir);
      read.add(dirname(real));
    } catch (error) {
      notes.push(`${adapter.id}: ${toLspGateError(error).message}`);
    }
  }
  if (flags.sandbox !== "none") {
    const bwrap = await onPath("bwrap");
    if (bwrap) {
      run.add(bwrap);
      // bwrap binds these system folders; lspgate checks them before binding.
      for (const dir of ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"]) read.add(dir);
    } else notes.push("sandbox: bwrap is not on PATH");
  }
  // lspgate's own source, so `deno run` of mod.ts and its Workers can load it.
  read.add(dirname(dirname(dirname(fromFileUrl(import.meta.url)))));
  return {
    read: [...read].sort(),
    write: flags.allowMutations ? [workspace.path] : [],
    run: [...run].sort(),
    env: ENV_READ,
    notes,
  };
}

/** The `deno run` command line granting exactly `permissions`. */
export function denoRunCommand(permissions: DenoPermissions, flags: GlobalFlags): string[] {
  const args = ["deno", "run", `--allow-read=${permissions.read.join(",")}`];
  if (permissions.write.length) args.push(`--allow-write=${permissions.write.join(",")}`);
  if (permissions.run.length) args.push(`--allow-run=${permissions.run.join(",")}`);
  args.push(`--allow-env=${permissions.env.join(",")}`);
  args.push(join(dirname(dirname(dirname(fromFileUrl(import.meta.url)))), "mod.ts"));
  args.push("--root", flags.root, "--role", flags.role);
  if (flags.allowMutations) args.push("--allow-mutations");
  if (flags.sandbox !== "none") args.push("--sandbox", flags.sandbox);
  return args;
}

/** `lspgate permissions`: prints the exact flags, and the same as a deno.json permission set. */
export async function printPermissions(flags: GlobalFlags, json = false): Promise<number> {
  const permissions = await neededPermissions(flags);
  const command = denoRunCommand(permissions, flags);
  if (json) {
    console.log(JSON.stringify({ command, permissions }, null, 2));
    return 0;
  }
  console.log("# The narrowest Deno permissions for this workspace (no network, no -A):");
  console.log(command.map((a) => /[\s,]/.test(a) && !a.startsWith("--") ? `'${a}'` : a).join(" "));
  console.log("\n# The same as a deno.json permission set:");
  console.log(JSON.stringify(
    {
      permissions: {
        lspgate: {
          read: permissions.read,
          write: permissions.write.length ? permissions.write : false,
          run: permissions.run,
          env: permissions.env,
          net: false,
        },
      },
    },
    null,
    2,
  ));
  for (const note of permissions.notes) console.log(`# note: ${note}`);
  return 0;
}
