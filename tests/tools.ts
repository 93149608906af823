// Makes sure the language servers the tests use are installed, the way users install them (npm),
// into a project-local folder when they are not on PATH already, and puts that folder on PATH.
import { join } from "node:path";

/** A server the integration tests run against, and how users get it. */
export interface TestServer {
  /** The program the adapter looks for. */
  bin: string;
  /** npm packages (pinned) that provide it. */
  packages?: string[];
  /** PyPI packages (pinned) that provide it, installed with `pip --prefix` into the tools folder. */
  pip?: string[];
  /**
   * A folder of its own under the tools folder, for a package whose programs clash with another's
   * (basedpyright also installs a `pyright-langserver`, which would shadow pyright's).
   */
  folder?: string;
}

/** The servers the integration tests run against, pinned. */
export const TEST_SERVERS: TestServer[] = [
  { bin: "pyright-langserver", packages: ["pyright@1.1.414"] },
  {
    bin: "typescript-language-server",
    packages: ["typescript-language-server@5.3.0", "typescript@5.9.3"],
  },
  { bin: "biome", packages: ["@biomejs/biome@2.6.8"] },
  { bin: "bash-language-server", packages: ["bash-language-server@5.8.1"] },
  // The JSON, CSS and HTML servers.
  { bin: "vscode-json-language-server", packages: ["vscode-langservers-extracted@4.10.0"] },
  { bin: "yaml-language-server", packages: ["yaml-language-server@2.0.0"] },
  { bin: "docker-langserver", packages: ["dockerfile-language-server-nodejs@0.15.0"] },
  { bin: "basedpyright-langserver", packages: ["basedpyright@1.40.1"], folder: "basedpyright" },
  // Ruff's own binary, from PyPI (npm's `ruff` is another project).
  { bin: "ruff", pip: ["ruff==0.17.6"] },
];

/** Folder the test servers are installed into when missing: `.lspgate/tools` in the project. */
export const TOOLS_DIR = join(import.meta.dirname!, "..", ".lspgate", "tools");

async function onPath(bin: string, path: string): Promise<boolean> {
  for (const dir of path.split(":")) {
    try {
      if ((await Deno.stat(join(dir, bin))).isFile) return true;
    } catch {
      // not here
    }
  }
  return false;
}

async function install(program: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, stdout: "inherit", stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`${program} ${args[0]} failed (exit ${out.code})`);
}

/**
 * Installs missing servers (npm packages into `.lspgate/tools`, or a folder of their own there;
 * PyPI packages into `.lspgate/tools/bin`; ShellCheck from Debian's packages) and returns the
 * PATH that finds them all.
 */
export async function ensureServers(): Promise<string> {
  // pip --prefix puts scripts in <prefix>/bin, or <prefix>/local/bin where Debian's Python scheme
  // applies (seen on a fresh machine): both are searched.
  const bins = [
    join(TOOLS_DIR, "node_modules", ".bin"),
    join(TOOLS_DIR, "bin"),
    join(TOOLS_DIR, "local", "bin"),
  ];
  for (const server of TEST_SERVERS) {
    if (server.folder) bins.push(join(TOOLS_DIR, server.folder, "node_modules", ".bin"));
  }
  const path = [Deno.env.get("PATH") ?? "", ...bins].join(":");
  const npm = new Map<string, string[]>();
  const pip: string[] = [];
  for (const server of TEST_SERVERS) {
    if (await onPath(server.bin, path)) continue;
    if (server.pip) pip.push(...server.pip);
    const prefix = server.folder ? join(TOOLS_DIR, server.folder) : TOOLS_DIR;
    npm.set(prefix, [...npm.get(prefix) ?? [], ...server.packages ?? []]);
  }
  for (const [prefix, packages] of npm) {
    if (packages.length === 0) continue;
    console.error(`tests: installing ${packages.join(" ")} into ${prefix}`);
    await Deno.mkdir(prefix, { recursive: true });
    await install("npm", ["install", "--no-audit", "--no-fund", "--prefix", prefix, ...packages]);
  }
  if (pip.length) {
    console.error(`tests: installing ${pip.join(" ")} into ${TOOLS_DIR}`);
    await install("pip", [
      "install",
      "--no-input",
      "--disable-pip-version-check",
      "--prefix",
      TOOLS_DIR,
      ...pip,
    ]);
  }
  await ensureShellcheck(path);
  return path;
}

/** ShellCheck, which bash-language-server runs for its diagnostics: from Debian's packages. */
async function ensureShellcheck(path: string): Promise<void> {
  if (await onPath("shellcheck", path)) return;
  if (Deno.uid() === 0 && (await onPath("apt-get", path))) {
    console.error("tests: installing shellcheck with apt-get");
    const apt = (args: string[]) =>
      new Deno.Command("apt-get", { args, stdout: "null", stderr: "inherit" }).output();
    const install = ["install", "-y", "-qq", "shellcheck"];
    if ((await apt(install)).success) return;
    if ((await apt(["update", "-qq"])).success && (await apt(install)).success) return;
  }
  console.error(
    "tests: shellcheck is missing (apt-get install shellcheck): the bash diagnostics tests fail",
  );
}

/** Folder holding `node_modules/typescript` 7.x (the native compiler and its `tsc --lsp`). */
export const TS7_DIR = join(TOOLS_DIR, "ts7");

/** Installs TypeScript 7 into `.lspgate/tools/ts7` when missing; returns its node_modules. */
export async function ensureTypeScript7(): Promise<string> {
  const modules = join(TS7_DIR, "node_modules");
  try {
    await Deno.stat(join(modules, ".bin", "tsc"));
    return modules;
  } catch {
    // not installed yet
  }
  await Deno.mkdir(TS7_DIR, { recursive: true });
  const npm = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--prefix", TS7_DIR, "typescript@7.0.2"],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!npm.success) throw new Error(`npm install typescript@7 failed (exit ${npm.code})`);
  return modules;
}

/**
 * Installs bubblewrap with apt where it is missing and we are root (the sandbox tests need it);
 * elsewhere says so once: those tests then fail, they are not skipped.
 */
export async function ensureBubblewrap(path: string): Promise<void> {
  if (await onPath("bwrap", path)) return;
  const root = Deno.uid() === 0;
  if (root && (await onPath("apt-get", path))) {
    console.error("tests: installing bubblewrap with apt-get");
    const apt = (args: string[]) =>
      new Deno.Command("apt-get", { args, stdout: "null", stderr: "inherit" }).output();
    if (
      (await apt(["update", "-qq"])).success &&
      (await apt(["install", "-y", "-qq", "bubblewrap"])).success
    ) return;
  }
  console.error(
    "tests: bubblewrap is missing (apt-get install bubblewrap): the sandbox tests will fail",
  );
}

// Native servers: not from npm. clangd from Debian's packages, gopls built from the Go module
// proxy with the machine's Go, rust-analyzer built from crates.io with the machine's Rust. Each is
// looked for on PATH and in lspgate's tools folder first; a server that cannot be had throws, so
// its conformance row fails saying why (never a skip counted as a pass).

/** Folder of native server binaries installed for the tests (`.lspgate/tools/bin`, on lspgate's search path). */
export const TOOLS_BIN = join(TOOLS_DIR, "bin");

/** gopls version built for the tests: the newest that builds with Go 1.26 (v0.24 needs Go 1.27). */
export const GOPLS_VERSION = "v0.23.0";

/**
 * rust-analyzer as crates.io publishes it (`ra_ap_rust-analyzer`, which holds the server's
 * binary): the newest release that builds with stable Rust 1.95 (later ones use features
 * stabilized after it). rustup's `rust-analyzer` component needs a host these machines cannot
 * reach.
 */
export const RUST_ANALYZER_VERSION = "0.0.330";

async function found(bin: string): Promise<string | undefined> {
  for (const dir of [...(Deno.env.get("PATH") ?? "").split(":"), TOOLS_BIN]) {
    if (!dir) continue;
    try {
      const path = join(dir, bin);
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function run(
  program: string,
  args: string[],
  env?: Record<string, string>,
): Promise<{ ok: boolean; output: string }> {
  try {
    const out = await new Deno.Command(program, { args, env, stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { ok: out.success, output: text.trim().split("\n").slice(-5).join("\n") };
  } catch (error) {
    return { ok: false, output: error instanceof Error ? error.message : String(error) };
  }
}

/** `apt-get install` of Debian packages (as root; `apt-get update` first when the list is stale). */
async function aptInstall(...packages: string[]): Promise<{ ok: boolean; output: string }> {
  const install = ["install", "-y", "-qq", "--no-install-recommends", ...packages];
  const first = await run("apt-get", install);
  if (first.ok) return first;
  const update = await run("apt-get", ["update", "-qq"]);
  return update.ok ? await run("apt-get", install) : update;
}

/** clangd from PATH, else installed from Debian's packages; throws when it cannot be had. */
export async function ensureClangd(): Promise<string> {
  const have = await found("clangd");
  if (have) return have;
  console.error("tests: installing clangd with apt-get");
  const apt = await aptInstall("clangd");
  const now = await found("clangd");
  if (now) return now;
  throw new Error(
    `clangd is not installed and apt-get could not install it (${apt.output}). ` +
      "Install it (`apt-get install clangd`) to run the C/C++ conformance rows.",
  );
}

/**
 * gopls from PATH or `.lspgate/tools/bin`, else built there with the machine's Go
 * (`go install golang.org/x/tools/gopls@GOPLS_VERSION`), else Debian's older gopls; throws when
 * none can be had.
 */
export async function ensureGopls(): Promise<string> {
  const have = await found("gopls");
  if (have) return have;
  const tried: string[] = [];
  if (await found("go")) {
    console.error(`tests: building gopls ${GOPLS_VERSION} into ${TOOLS_BIN}`);
    const go = await run("go", ["install", `golang.org/x/tools/gopls@${GOPLS_VERSION}`], {
      GOBIN: TOOLS_BIN,
      GOTOOLCHAIN: "local",
    });
    if (go.ok && await found("gopls")) return (await found("gopls"))!;
    tried.push(`go install failed: ${go.output}`);
  } else {
    tried.push("`go` is not on PATH");
  }
  console.error("tests: installing Debian's gopls with apt-get");
  const apt = await aptInstall("gopls");
  const now = await found("gopls");
  if (now) return now;
  tried.push(`apt-get install gopls failed: ${apt.output}`);
  throw new Error(`gopls could not be installed: ${tried.join("; ")}.`);
}

/**
 * rust-analyzer from PATH or `.lspgate/tools/bin` (rustup's proxy of that name does not count
 * unless its component is installed), else built from crates.io into `.lspgate/tools` (about 7
 * minutes on 2 cores the first time; the build folder is kept in ~/.cache/lspgate so a fresh
 * checkout only relinks it); throws when it cannot be had.
 */
export async function ensureRustAnalyzer(): Promise<string> {
  for (const candidate of [await found("rust-analyzer"), join(TOOLS_BIN, "rust-analyzer")]) {
    if (candidate && (await run(candidate, ["--version"])).ok) return candidate;
  }
  if (!(await found("cargo"))) {
    throw new Error("rust-analyzer is missing and cargo is not on PATH.");
  }
  console.error(
    `tests: building rust-analyzer (ra_ap_rust-analyzer ${RUST_ANALYZER_VERSION}) into ` +
      `${TOOLS_DIR}; the first build takes minutes`,
  );
  const home = Deno.env.get("HOME") ?? "/tmp";
  const cargo = await run("cargo", [
    "install",
    `ra_ap_rust-analyzer@${RUST_ANALYZER_VERSION}`,
    "--locked",
    "--root",
    TOOLS_DIR,
  ], {
    CARGO_TARGET_DIR: join(home, ".cache", "lspgate", "cargo-target"),
    // A quicker build of a still fast server.
    CARGO_PROFILE_RELEASE_OPT_LEVEL: "1",
    CARGO_PROFILE_RELEASE_DEBUG: "0",
    CARGO_PROFILE_RELEASE_LTO: "false",
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "16",
  });
  const built = join(TOOLS_BIN, "rust-analyzer");
  if (cargo.ok && (await run(built, ["--version"])).ok) return built;
  throw new Error(`rust-analyzer could not be built from crates.io: ${cargo.output}`);
}

/** Installs the native servers the conformance suite needs where missing; says which it cannot. */
export async function ensureNativeServers(): Promise<void> {
  for (const ensure of [ensureClangd, ensureGopls, ensureRustAnalyzer]) {
    await ensure().catch((error) => console.error(`tests: ${error.message}`));
  }
}

/** sandbox-runtime, pinned: Anthropic's `srt`, the sandbox Claude Code runs agents in. */
export const SANDBOX_RUNTIME_PACKAGE = "@anthropic-ai/sandbox-runtime@0.0.78";

/**
 * Installs sandbox-runtime into `.lspgate/tools/srt` when missing and returns its `srt` program;
 * it needs ripgrep and socat (Debian's packages), which are checked, not installed here.
 */
export async function ensureSandboxRuntime(): Promise<string> {
  const folder = join(TOOLS_DIR, "srt");
  const srt = join(folder, "node_modules", ".bin", "srt");
  for (const needed of ["rg", "socat"]) {
    if (!(await onPath(needed, Deno.env.get("PATH") ?? ""))) {
      throw new Error(`sandbox-runtime needs ${needed} (apt-get install ripgrep socat)`);
    }
  }
  try {
    await Deno.stat(srt);
    return srt;
  } catch {
    // not installed yet
  }
  console.error(`tests: installing ${SANDBOX_RUNTIME_PACKAGE} into ${folder}`);
  await Deno.mkdir(folder, { recursive: true });
  await install("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefix",
    folder,
    SANDBOX_RUNTIME_PACKAGE,
  ]);
  return srt;
}
