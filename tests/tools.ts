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
  // Its own folder: it brings its own prettier and yaml-language-server.
  {
    bin: "astro-ls",
    packages: ["@astrojs/language-server@2.17.1", "typescript@5.9.3"],
    folder: "astro",
  },
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
  const shared = [Deno.env.get("PATH") ?? "", ...bins.slice(0, 3)].join(":");
  for (const server of TEST_SERVERS) {
    // Each looked for where it is its own: a folder of another server's (basedpyright also ships
    // a pyright-langserver) does not count as having it.
    const own = server.folder
      ? `${shared}:${join(TOOLS_DIR, server.folder, "node_modules", ".bin")}`
      : shared;
    if (await onPath(server.bin, own)) continue;
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

/** While a build of rust-analyzer runs, this file in the tools folder holds its process id. */
export const RUST_ANALYZER_BUILD_LOCK = join(TOOLS_DIR, "rust-analyzer.building");

/**
 * rust-analyzer from PATH or `.lspgate/tools/bin` (rustup's proxy of that name does not count
 * unless its component is installed), else built from crates.io into `.lspgate/tools` (about 16
 * minutes on 2 cores the first time; the build folder is kept in ~/.cache/lspgate so a fresh
 * checkout only relinks it); throws when it cannot be had. A build another process runs (the
 * test runner starts one in the background, see startRustAnalyzerBuild) is awaited, not repeated.
 */
export async function ensureRustAnalyzer(): Promise<string> {
  const have = async () => {
    for (const candidate of [await found("rust-analyzer"), join(TOOLS_BIN, "rust-analyzer")]) {
      if (candidate && (await run(candidate, ["--version"])).ok) return candidate;
    }
    return undefined;
  };
  const ready = await have();
  if (ready) return ready;
  if (await awaitOtherBuild()) {
    const built = await have();
    if (built) return built;
    throw new Error(`rust-analyzer could not be built from crates.io: ${await buildLog()}`);
  }
  if (!(await found("cargo"))) {
    throw new Error("rust-analyzer is missing and cargo is not on PATH.");
  }
  console.error(
    `tests: building rust-analyzer (ra_ap_rust-analyzer ${RUST_ANALYZER_VERSION}) into ` +
      `${TOOLS_DIR}; the first build takes minutes`,
  );
  await Deno.mkdir(TOOLS_DIR, { recursive: true });
  await Deno.writeTextFile(RUST_ANALYZER_BUILD_LOCK, String(Deno.pid));
  await Deno.remove(RUST_ANALYZER_BUILD_LOG).catch(() => {});
  try {
    const home = Deno.env.get("HOME") ?? "/tmp";
    // At the lowest CPU priority: it runs beside the tests, which get the cores first.
    const nice = (await found("nice")) ? ["nice", "-n", "19"] : [];
    const [program, ...prefix] = [...nice, "cargo"];
    const cargo = await run(program, [
      ...prefix,
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
    await Deno.writeTextFile(RUST_ANALYZER_BUILD_LOG, cargo.output);
    throw new Error(`rust-analyzer could not be built from crates.io: ${cargo.output}`);
  } finally {
    await Deno.remove(RUST_ANALYZER_BUILD_LOCK).catch(() => {});
  }
}

/** The last lines of a failed build, for the tests that needed it. */
const RUST_ANALYZER_BUILD_LOG = join(TOOLS_DIR, "rust-analyzer.build-failed");

async function buildLog(): Promise<string> {
  return await Deno.readTextFile(RUST_ANALYZER_BUILD_LOG).catch(() => "no log");
}

/**
 * Waits while another live process holds the build lock; true when there was one. Polls the
 * lock: the build is another process, with nothing to listen to but its files.
 */
async function awaitOtherBuild(): Promise<boolean> {
  let waited = false;
  for (;;) {
    const pid = Number(await Deno.readTextFile(RUST_ANALYZER_BUILD_LOCK).catch(() => ""));
    if (!pid || pid === Deno.pid || !(await alive(pid))) return waited;
    if (!waited) console.error(`tests: waiting for the rust-analyzer build (process ${pid})`);
    waited = true;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function alive(pid: number): Promise<boolean> {
  try {
    return (await Deno.stat(`/proc/${pid}`)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Starts building rust-analyzer in a process of its own when it is missing (`deno run
 * tests/tools.ts rust-analyzer`), so the other tests run meanwhile; resolves when it is there
 * (true) or the build failed (false). Undefined when it is already installed.
 */
export async function startRustAnalyzerBuild(): Promise<Promise<boolean> | undefined> {
  for (const candidate of [await found("rust-analyzer"), join(TOOLS_BIN, "rust-analyzer")]) {
    if (candidate && (await run(candidate, ["--version"])).ok) return undefined;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", import.meta.filename!, "rust-analyzer"],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // The lock is taken by the child; wait until it is (or the child is gone) so that a test that
  // needs rust-analyzer waits for this build instead of starting a second one.
  const started = child.status;
  for (let i = 0; i < 150; i++) {
    if (await Deno.stat(RUST_ANALYZER_BUILD_LOCK).then(() => true, () => false)) break;
    const done = await Promise.race([started, new Promise((r) => setTimeout(() => r(null), 100))]);
    if (done !== null) break;
  }
  return started.then((status) => status.success);
}

/**
 * Installs clangd and gopls where missing (rust-analyzer's long build runs apart: see
 * startRustAnalyzerBuild); says which it cannot.
 */
export async function ensureNativeServers(): Promise<void> {
  for (const ensure of [ensureClangd, ensureGopls]) {
    await ensure().catch((error) => console.error(`tests: ${error.message}`));
  }
}

/** sandbox-runtime, pinned: Anthropic's `srt`, the sandbox Claude Code runs agents in. */
export const SANDBOX_RUNTIME_PACKAGE = "@anthropic-ai/sandbox-runtime@0.0.78";

/**
 * Installs sandbox-runtime into `.lspgate/tools/srt` when missing and returns its `srt` program;
 * it needs ripgrep and socat, installed from Debian's packages where missing (as root).
 */
export async function ensureSandboxRuntime(): Promise<string> {
  const folder = join(TOOLS_DIR, "srt");
  const srt = join(folder, "node_modules", ".bin", "srt");
  for (const [needed, pkg] of [["rg", "ripgrep"], ["socat", "socat"]]) {
    if (await onPath(needed, Deno.env.get("PATH") ?? "")) continue;
    console.error(`tests: installing ${pkg} with apt-get (sandbox-runtime needs it)`);
    const apt = await aptInstall(pkg);
    if (!(await onPath(needed, Deno.env.get("PATH") ?? ""))) {
      throw new Error(`sandbox-runtime needs ${needed} (apt-get install ${pkg}): ${apt.output}`);
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

/**
 * Whether a `deno test` run registers a test, as tests/run.ts sets `LSPGATE_RUST_TESTS`: while
 * rust-analyzer's first build runs (`without`), the tests that need it are left to a second
 * pass (RUST_TESTS) that runs once it is built, so the rest need not wait for it.
 */
export function registersTest(needsRustAnalyzer: boolean): boolean {
  return !(needsRustAnalyzer && Deno.env.get("LSPGATE_RUST_TESTS") === "without");
}

/** The tests that need rust-analyzer: their files, and a `deno test --filter` naming them. */
export const RUST_TESTS = {
  files: [
    "tests/conformance/conformance_test.ts",
    "tests/security/hostile_repo_test.ts",
    "tests/integration/rust_coverage_test.ts",
    "tests/integration/sandbox_toolchains_test.ts",
  ],
  filter:
    "/^(conformance: rust-analyzer|hostile Rust repo|rust-analyzer: |Rust crate with a crates.io)/",
};

if (import.meta.main && Deno.args[0] === "rust-analyzer") {
  // The background build tests/run.ts starts.
  try {
    await ensureRustAnalyzer();
  } catch (error) {
    console.error(`tests: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}

/** Agents' own CLIs the documentation test checks the README's setups with (pinned npm packages). */
export const AGENT_CLIS = {
  claude: "@anthropic-ai/claude-code@2.1.332",
  codex: "@openai/codex@0.169.0",
  opencode: "opencode-ai@1.18.33",
  // pi's types, to check its extension against (pi has no offline check of its own).
  pi: "@mariozechner/pi-coding-agent@0.73.1",
} as const;

/**
 * An agent's CLI from npm, installed when missing into `.lspgate/tools/agents/<name>` (never
 * globally: the test must not change the machine's agents); returns the program's path.
 */
export async function ensureAgentCli(name: keyof typeof AGENT_CLIS): Promise<string> {
  const prefix = join(TOOLS_DIR, "agents", name);
  const program = join(prefix, "node_modules", ".bin", name);
  if (await Deno.stat(program).then((i) => i.isFile, () => false)) return program;
  console.error(`tests: installing ${AGENT_CLIS[name]} into ${prefix}`);
  await Deno.mkdir(prefix, { recursive: true });
  await install("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefix",
    prefix,
    AGENT_CLIS[name],
  ]);
  return program;
}
