// Makes sure the language servers the tests use are installed, the way users install them (npm),
// into a project-local folder when they are not on PATH already, and puts that folder on PATH.
import { join } from "node:path";

/** npm packages of the servers the integration tests run against. */
export const TEST_SERVERS = [
  { bin: "pyright-langserver", packages: ["pyright@1.1.414"] },
  {
    bin: "typescript-language-server",
    packages: ["typescript-language-server@5.3.0", "typescript@5.9.3"],
  },
  { bin: "biome", packages: ["@biomejs/biome@2.6.8"] },
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

/** Installs missing servers with npm and returns the PATH that finds them all. */
export async function ensureServers(): Promise<string> {
  const toolsBin = join(TOOLS_DIR, "node_modules", ".bin");
  const path = `${Deno.env.get("PATH") ?? ""}:${toolsBin}`;
  const missing = [];
  for (const server of TEST_SERVERS) {
    if (!(await onPath(server.bin, path))) missing.push(...server.packages);
  }
  if (missing.length) {
    console.error(`tests: installing ${missing.join(" ")} into ${TOOLS_DIR}`);
    await Deno.mkdir(TOOLS_DIR, { recursive: true });
    const npm = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--prefix", TOOLS_DIR, ...missing],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!npm.success) throw new Error(`npm install failed (exit ${npm.code})`);
  }
  return path;
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
