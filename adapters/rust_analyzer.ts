import { basename, dirname, join } from "../src/posix_path.ts";
import type { Adapter, ServerCommand } from "../src/servers/adapter.ts";
import { onPath, realPath, searchFolders } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";
import { pathExists } from "../src/fs.ts";

const installHint = "Install rust-analyzer: `rustup component add rust-analyzer` (and " +
  "`rust-src`, for the standard library), or build it from crates.io: `cargo install " +
  "ra_ap_rust-analyzer --locked` (its binary is rust-analyzer). It needs cargo on PATH.";

/**
 * rust-analyzer for Cargo projects. It runs `cargo metadata` to learn the project, so it needs
 * cargo on PATH (and, through rustup, the user's toolchains read-only in the sandbox).
 *
 * A repository chooses nothing that runs: the user's default toolchain is pinned (a
 * rust-toolchain.toml may name another, even a folder inside the repository), cargo's wrappers
 * from a repository's .cargo/config.toml are cleared, and build scripts, proc macros and
 * `cargo check` (all code from the repository or its dependencies) stay off unless the root is
 * trusted. Diagnostics are then rust-analyzer's own, not rustc's.
 */
export const rustAnalyzerAdapter: Adapter = {
  id: "rust-analyzer",
  languages: { ".rs": "rust" },
  rootMarkers: ["Cargo.toml", "rust-project.json"],
  priority: 10,
  installHint,
  readiness: "progress",
  // Its loading comes in several progress phases with gaps between them; it says when it is done.
  quiescentNotification: "experimental/serverStatus",
  extraCapabilities: { experimental: { serverStatusNotification: true } },
  async resolve({ workspace, configuredCommand, trusted }): Promise<ServerCommand> {
    const cargo = await onPath("cargo", workspace);
    if (!cargo) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `rust-analyzer needs cargo, and cargo was not found on PATH. ${installHint}`,
        { server: "rust-analyzer" },
      );
    }
    const toolchain = await rustToolchain(cargo);
    const options = analyzerOptions(trusted);
    const common = {
      readOnlyPaths: toolchain.readOnlyPaths,
      env: toolchain.env,
      initializationOptions: options,
      settings: { "rust-analyzer": options },
    };
    if (configuredCommand) return { command: configuredCommand, ...common };
    const found = await findAnalyzer(workspace, toolchain.rustupHome);
    if (!found) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `rust-analyzer was not found on PATH or in lspgate's tools folder (rustup's proxy of ` +
          `that name needs its component installed). ${installHint}`,
        { server: "rust-analyzer" },
      );
    }
    return {
      command: [found],
      installDir: dirname(await realPath(found)),
      ...common,
      note: trusted
        ? "build scripts and proc macros on (trusted root)"
        : "build scripts, proc macros and cargo check off (root not trusted)",
    };
  },
};

function analyzerOptions(trusted: boolean): Record<string, unknown> {
  return {
    cargo: { buildScripts: { enable: trusted } },
    procMacro: { enable: trusted },
    // `cargo check` builds the project (build.rs runs) and writes target/ into the workspace.
    checkOnSave: false,
    check: { workspace: false },
    cachePriming: { enable: true },
  };
}

/**
 * The first `rust-analyzer` on PATH or in lspgate's tools folders that is a real server: rustup's
 * proxy of that name counts only where some toolchain has the component.
 */
async function findAnalyzer(workspace: string, rustupHome?: string): Promise<string | undefined> {
  for (const folder of searchFolders(workspace)) {
    const candidate = join(folder, "rust-analyzer");
    if (!(await isExecutable(candidate))) continue;
    if (basename(await realPath(candidate)) !== "rustup") return candidate;
    if (rustupHome && (await componentInstalled(rustupHome))) return candidate;
  }
  return undefined;
}

async function componentInstalled(rustupHome: string): Promise<boolean> {
  try {
    for await (const toolchain of Deno.readDir(join(rustupHome, "toolchains"))) {
      if (
        await pathExists(join(rustupHome, "toolchains", toolchain.name, "bin", "rust-analyzer"))
      ) {
        return true;
      }
    }
  } catch {
    // No toolchains folder.
  }
  return false;
}

/**
 * What cargo needs to run: where it lives and, for rustup's proxies, RUSTUP_HOME (toolchains,
 * read-only) with the user's default toolchain pinned.
 */
async function rustToolchain(cargo: string): Promise<{
  readOnlyPaths: string[];
  env: Record<string, string>;
  rustupHome?: string;
}> {
  const env: Record<string, string> = {
    // No network in the sandbox; outside it, no download on a repository's say either.
    CARGO_NET_OFFLINE: "true",
    // Set in a repository's .cargo/config.toml, these would run its programs as rustc.
    CARGO_BUILD_RUSTC: "rustc",
    CARGO_BUILD_RUSTC_WRAPPER: "",
    CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER: "",
  };
  const real = await realPath(cargo);
  const readOnlyPaths = [dirname(real)];
  const crates = await cargoHome();
  if (crates) {
    readOnlyPaths.push(...crates.paths);
    env.CARGO_HOME = crates.home;
  }
  if (basename(real) !== "rustup") return { readOnlyPaths, env };
  const home = envGet("HOME");
  const rustupHome = envGet("RUSTUP_HOME") ?? (home ? join(home, ".rustup") : undefined);
  if (!rustupHome) return { readOnlyPaths, env };
  readOnlyPaths.push(rustupHome);
  Object.assign(env, { RUSTUP_HOME: rustupHome, RUSTUP_AUTO_INSTALL: "0" });
  const toolchain = await defaultToolchain(rustupHome);
  // A rust-toolchain.toml in the repository cannot choose the toolchain (or a folder of its own).
  if (toolchain) env.RUSTUP_TOOLCHAIN = toolchain;
  return { readOnlyPaths, env, rustupHome };
}

/**
 * The user's CARGO_HOME (else ~/.cargo): its registry (index, downloaded crates, their sources),
 * git checkouts and config, read-only, so `cargo metadata --offline` resolves the dependencies
 * the user has already fetched. Its credentials are never shown.
 */
async function cargoHome(): Promise<{ home: string; paths: string[] } | undefined> {
  const home = envGet("HOME");
  const cargo = envGet("CARGO_HOME") ?? (home ? join(home, ".cargo") : undefined);
  if (!cargo) return undefined;
  const paths: string[] = [];
  for (const name of ["registry", "git"]) {
    if (await pathExists(join(cargo, name))) paths.push(join(cargo, name));
  }
  // The config may name a source replacement (a vendored or mirrored registry) cargo needs; one
  // that holds a registry token (allowed there, beside credentials.toml) is not shown.
  for (const name of ["config.toml", "config"]) {
    const text = await Deno.readTextFile(join(cargo, name)).catch(() => undefined);
    if (text !== undefined && !/token|credential/i.test(text)) paths.push(join(cargo, name));
  }
  return paths.length ? { home: cargo, paths } : undefined;
}

async function defaultToolchain(rustupHome: string): Promise<string | undefined> {
  try {
    const settings = await Deno.readTextFile(join(rustupHome, "settings.toml"));
    return settings.match(/^default_toolchain\s*=\s*"([^"]+)"/m)?.[1];
  } catch {
    return undefined;
  }
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

function envGet(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name it counts as unset.
    return undefined;
  }
}
