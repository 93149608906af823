import { fileURLToPath } from "../file_url.ts";
import { basename, dirname, join } from "../posix_path.ts";
import { ADAPTERS } from "../../adapters/mod.ts";
import { toLspGateError } from "../errors.ts";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import { configureServers } from "../servers/custom_adapter.ts";
import { CAP_SHELL } from "../servers/memory_cap.ts";
import { daemonSocketPath, runtimeFolderPath } from "../fs.ts";
import { lspgateHome, onPath, realPath, searchFolders } from "../servers/find_binary.ts";
import { libcPath } from "../lsp/sandbox/landlock.ts";
import { V8_FLAGS_ARG } from "../v8_flags.ts";
import { type GlobalFlags, sandboxFor, trustedRootsOf } from "./main.ts";

/** The Deno permissions one lspgate run needs, as lists (for flags and deno.json). */
export interface DenoPermissions {
  read: string[];
  write: string[];
  run: string[];
  env: string[];
  /** System information read: none (the runtime folder is named and checked without a uid). */
  sys: string[];
  /** Only the daemon's Unix socket (`unix:PATH`), never the network. */
  net: string[];
  notes: string[];
}

/** Environment variables lspgate reads itself (servers inherit the rest without a grant). */
const ENV_READ = [
  "PATH",
  "HOME",
  "NO_COLOR",
  "LSPGATE_NO_BWRAP",
  "LSPGATE_TOOLS_DIR",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "INIT_CWD",
  "LSPGATE_TELEMETRY",
  "XDG_RUNTIME_DIR",
  // Names the runtime folder where XDG_RUNTIME_DIR is unset (/tmp/lspgate-$USER).
  "USER",
  "TMPDIR",
  // Where the Go and Rust toolchains keep their modules (gopls and rust-analyzer read them).
  "GOPATH",
  "GOMODCACHE",
  "RUSTUP_HOME",
  "CARGO_HOME",
  // The user's Go settings and the cache folder gopls's caches are in (src/servers/go_env.ts).
  "GOENV",
  "GOFLAGS",
  "XDG_CACHE_HOME",
  // The Python a pyenv shim stands for, and pip --user's site (src/servers/runtime_paths.ts).
  "PYENV_VERSION",
  "PYTHONUSERBASE",
];

/** Files looked at to learn which languages a workspace holds. */
const SCAN_LIMIT = 20_000;

/**
 * Works out the narrowest Deno permissions for this workspace and config: read on the root, the
 * read-only roots, the servers' install folders and PATH (to find them); run on the server
 * binaries found and on what the sandbox in force needs (bwrap, or deno for the Landlock
 * launcher); write on the root only with mutations; no net.
 */
/** The programs memory.ts runs where Deno may not read /proc. */
const MEMORY_TOOLS = ["/usr/bin/sh", "/bin/sh", "/usr/bin/cat", "/bin/cat"];

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

export async function neededPermissions(flags: GlobalFlags): Promise<DenoPermissions> {
  const workspace = await WorkspaceRoot.open(flags.root, {
    readOnlyRoots: flags.config.readOnlyRoots,
  });
  const read = new Set<string>([workspace.path, ...workspace.readOnlyRoots]);
  const run = new Set<string>();
  const notes: string[] = [];
  const inside = (path: string) => path === workspace.path || path.startsWith(workspace.path + "/");
  // PATH and lspgate's tools folders are read to find servers and bwrap; any inside the workspace
  // are never searched, so never granted.
  for (const dir of searchFolders(workspace.path)) read.add(dir);
  const sandbox = await sandboxFor(flags);
  const trusted = sandbox.sandboxed && trustedRootsOf(flags).length > 0;
  const present = await filesIn(workspace);
  // The adapters a session would use: the shipped ones with the user's config applied, and the
  // servers that config adds.
  const { adapters } = await configureServers(ADAPTERS, flags.config, workspace);
  for (const adapter of adapters) {
    // Only the servers this workspace's files can need.
    const needed = Object.keys(adapter.languages).some((ext) => present.extensions.has(ext)) ||
      Object.keys(adapter.filenames ?? {}).some((name) => present.names.has(name));
    if (!needed) continue;
    try {
      const command = await adapter.resolve({
        root: workspace.path,
        workspace: workspace.path,
        configuredCommand: flags.config.servers[adapter.id]?.command,
        trusted,
      });
      const real = await realPath(command.command[0]);
      if (inside(command.command[0]) || inside(real)) {
        // A trusted root's own program runs only in the sandbox, spawned by bwrap.
        notes.push(`${adapter.id}: the project's own ${command.command[0]} runs only sandboxed`);
      } else {
        run.add(command.command[0]);
        if (real !== command.command[0]) run.add(real);
        read.add(dirname(real));
      }
      if (command.installDir) read.add(command.installDir);
      for (const path of command.readOnlyPaths ?? []) read.add(path);
      if (flags.config.servers[adapter.id]?.memoryCapMiB !== undefined) {
        // The shell that sets the cap and becomes the server (inside the sandbox where there is one).
        if (sandbox.backend === "none") run.add(CAP_SHELL);
        notes.push(
          `${adapter.id}: started by ${CAP_SHELL}, which sets its memory cap (memoryCapMiB)`,
        );
      }
    } catch (error) {
      notes.push(`${adapter.id}: ${toLspGateError(error).message}`);
    }
  }
  if (sandbox.backend === "bwrap") {
    const bwrap = await onPath("bwrap", workspace.path);
    if (bwrap) {
      run.add(bwrap);
      // bwrap binds these system folders; lspgate checks them before binding.
      for (const dir of ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"]) read.add(dir);
    }
  } else if (sandbox.backend === "landlock") {
    // The launcher is this Deno, run with --allow-ffi on libc alone (its own grant, on its own
    // command line); lspgate looks for libc and checks its runtime folder.
    const deno = Deno.execPath();
    run.add(deno);
    const libc = libcPath();
    if (libc) read.add(libc);
    read.add(runtimeFolderPath());
    const scratch = join(runtimeFolderPath(), "sandbox");
    notes.push(
      `Landlock: each server is started by \`${deno} run --allow-ffi=${libc} ` +
        `--allow-read=${scratch} --allow-write=${scratch} …landlock_launcher.ts\`, which ` +
        "makes the server's scratch folder there, restricts itself and then becomes the server",
    );
  }
  notes.push(`servers sandboxed: ${sandbox.label}`);
  // lspgate's own source, so `deno run` of mod.ts and its Workers can load it.
  read.add(lspgateHome());
  // The servers' process trees, for their memory in status and the memory budget: Deno asks
  // --allow-all for /proc, so `sh -c 'exec cat /proc/[0-9]*/stat'` reads it (memory.ts).
  for (const tool of MEMORY_TOOLS) {
    if (await isFile(tool)) run.add(tool);
  }
  // lspgate's own watcher process (inotify_process.ts), where the watching is not on the main
  // thread (the daemon, trees over 1,000 folders); without it a Worker watches.
  run.add(Deno.execPath());
  const watcherLibc = libcPath();
  if (watcherLibc) read.add(watcherLibc);
  notes.push(
    `the workspace watcher, outside the main thread, is \`${Deno.execPath()} run --allow-ffi=<libc> ` +
      "--allow-read …inotify_watch.ts\`, one for every root (it only watches; with a narrower read " +
      "grant than this one, one for each root, granted that root)",
  );
  // lspgate's private runtime folder (never the workspace): the daemon's socket, the hook's turn
  // state, the watcher's barrier (exact change tracking). Its one socket is all the net there is.
  const runtime = runtimeFolderPath();
  const write = [...(flags.allowMutations ? [workspace.path] : []), runtime];
  read.add(runtime);
  const net = [`unix:${daemonSocketPath()}`];
  notes.push(
    `read and write of ${runtime} (lspgate's private runtime folder, 0700) and net for its ` +
      "daemon socket alone (no network): call, hook and --daemon share the warm daemon; this " +
      "grant reaches a daemon already running but cannot start one (that takes --allow-run for " +
      "any program, as `deno task start` grants): without one they serve in-process",
  );
  return {
    read: [...read].sort(),
    write,
    sys: [],
    net,
    run: [...run].sort(),
    env: ENV_READ,
    notes,
  };
}

/** The file extensions and whole names present in the workspace (heavy folders skipped). */
async function filesIn(
  workspace: WorkspaceRoot,
): Promise<{ extensions: Set<string>; names: Set<string> }> {
  const extensions = new Set<string>();
  const names = new Set<string>();
  const { paths } = await workspace.glob("**/*", { limit: SCAN_LIMIT });
  for (const path of paths) {
    const name = basename(path);
    names.add(name);
    const dot = name.lastIndexOf(".");
    if (dot > 0) extensions.add(name.slice(dot).toLowerCase());
  }
  return { extensions, names };
}

/** The bundle this code runs from, where it runs as one (all its modules share its URL). */
function bundlePath(): string | undefined {
  const here = new URL(import.meta.url);
  if (here.protocol !== "file:" || here.pathname.endsWith("/src/frontends/permissions_cmd.ts")) {
    return undefined;
  }
  return fileURLToPath(here);
}

/** The `deno run` command line granting exactly `permissions` (with lspgate's V8 flags). */
export function denoRunCommand(permissions: DenoPermissions, flags: GlobalFlags): string[] {
  const args = ["deno", "run", V8_FLAGS_ARG, `--allow-read=${permissions.read.join(",")}`];
  if (permissions.write.length) args.push(`--allow-write=${permissions.write.join(",")}`);
  if (permissions.run.length) args.push(`--allow-run=${permissions.run.join(",")}`);
  args.push(`--allow-env=${permissions.env.join(",")}`);
  if (permissions.sys.length) args.push(`--allow-sys=${permissions.sys.join(",")}`);
  if (permissions.net.length) args.push(`--allow-net=${permissions.net.join(",")}`);
  // The program running: the checkout's mod.ts, or a bundle (dist/lspgate.js, also what the npm
  // package runs), which outside this project's deno.json needs the flag for its Workers'
  // narrowed permissions (a helper's find: a bundle printed a mod.ts that is not there).
  const bundle = bundlePath();
  if (bundle) args.push("--unstable-worker-options", bundle);
  else args.push(join(lspgateHome(), "mod.ts"));
  args.push("--root", flags.root, "--role", flags.role);
  if (flags.allowMutations) args.push("--allow-mutations");
  if (flags.sandbox !== "auto") args.push("--sandbox", flags.sandbox);
  if (flags.trust) args.push("--trust");
  if (flags.daemon === "on") args.push("--daemon");
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
          sys: permissions.sys.length ? permissions.sys : false,
          net: permissions.net.length ? permissions.net : false,
        },
      },
    },
    null,
    2,
  ));
  for (const note of permissions.notes) console.log(`# note: ${note}`);
  return 0;
}
