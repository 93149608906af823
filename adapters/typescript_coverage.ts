// typescript-language-server without a tsconfig.json or jsconfig.json: tsserver puts each open file
// in an inferred project of that file and what it imports, so references, renames and workspace
// symbols search only those (zod's published src/: references to util.joinValues answered 1 of 6).
// lspgate hands tsserver the project's files as one external project (tsserver's
// openExternalProject, the command IDE hosts use for projects of their own), forwarded through the
// server's `typescript.tsserverRequest`: every file of the project is then searched, as with a
// tsconfig.json that includes them all.
import { dirname, join } from "../src/posix_path.ts";
import { parseJsonc } from "../src/jsonc.ts";
import { configIncludes, type IncludeCheck } from "../src/actions/config_includes.ts";
import { relativeImports } from "../src/actions/importers.ts";
import type { CoverageAnswer, CoverageContext, CoverageHook } from "./coverage.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";

const COMMAND = "typescript.tsserverRequest";
const CONFIGS = ["tsconfig.json", "jsconfig.json"];
/** Most files handed to tsserver as one project. */
export const MAX_EXTERNAL_FILES = 5000;
/** How long tsserver may take to load them (zod's 1,076 files: ~7 s on a busy 2-core machine). */
const LOAD_TIMEOUT_MS = 120_000;

/**
 * The compiler options typescript-language-server gives its inferred projects (its
 * getInferredProjectCompilerOptions and setCompilerOptionsForInferredProjects), so the files are
 * read as they were before, only together.
 */
const OPTIONS = {
  module: "preserve",
  moduleResolution: "bundler",
  target: "es2022",
  jsx: "react-jsx",
  allowImportingTsExtensions: true,
  strict: true,
  strictNullChecks: true,
  strictFunctionTypes: true,
  sourceMap: true,
  allowJs: true,
  allowNonTsExtensions: true,
  allowSyntheticDefaultImports: true,
  resolveJsonModule: true,
  noEmit: true,
};

/** Per server, the file list last handed over (or being handed over) and how it went. */
const handed = new WeakMap<object, { signature: string; answer: Promise<CoverageAnswer> }>();

/**
 * See the file comment: a project without a config is handed over; one with a config is
 * tsserver's own, partial where its include leaves TypeScript files of the project out.
 */
export const tsserverCoverage: CoverageHook = async (context) => {
  for (const name of CONFIGS) {
    const text = await context.readText(join(context.root, name));
    if (text !== undefined) return await configured(context, name, text);
  }
  const commands = context.client.capabilities.executeCommandProvider?.commands ?? [];
  if (!commands.includes(COMMAND)) {
    return {
      partial: true,
      reason: "no tsconfig.json: TypeScript searched only the open files and what they import",
    };
  }
  const all = await context.files();
  // The walk did not find the project (a file in a folder it skips): nothing to hand over.
  if (all.length === 0) {
    return { partial: true, reason: "no tsconfig.json: tsserver searched only the open files" };
  }
  const files = all.slice(0, MAX_EXTERNAL_FILES);
  const signature = files.join("\n");
  let last = handed.get(context.client);
  if (!last || last.signature !== signature) {
    last = { signature, answer: handOver(context, files) };
    handed.set(context.client, last);
    const mine = last;
    // A failed hand-over is tried again by the next question.
    mine.answer.then((answer) => {
      if (answer.partial && handed.get(context.client) === mine) handed.delete(context.client);
    });
  }
  const answer = await last.answer;
  if (answer.partial || files.length === all.length) return answer;
  return {
    partial: true,
    reason: `no tsconfig.json: tsserver was given the first ${MAX_EXTERNAL_FILES} of ` +
      `${all.length} files`,
  };
};

async function handOver(context: CoverageContext, files: readonly string[]) {
  const failed = (why: string): CoverageAnswer => ({
    partial: true,
    reason: `no tsconfig.json: tsserver searched only the open files (${why})`,
  });
  try {
    const response = await context.client.request<{ success?: unknown; message?: unknown }>(
      "workspace/executeCommand",
      {
        command: COMMAND,
        arguments: ["openExternalProject", {
          // A name of lspgate's own: tsserver keeps the project by it, and reads no such file.
          projectFileName: join(context.root, ".lspgate-workspace-project"),
          rootFiles: files.map((fileName) => ({ fileName })),
          options: OPTIONS,
        }],
      },
      // Not the asker's signal: other questions may be waiting on the same hand-over.
      { timeoutMs: LOAD_TIMEOUT_MS },
    );
    if (response?.success !== true) {
      return failed(
        `it refused the workspace's files: ${String(response?.message ?? "no answer")}`,
      );
    }
    return { partial: false };
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Per file list (the walk's, kept until a file is created or deleted) and config text, the
 * TypeScript files the config leaves out: matching rxjs's 252 files took ~0.35 ms of every
 * references question.
 */
const leftOut = new WeakMap<readonly string[], Map<string, readonly string[]>>();

function leftOutBy(
  files: readonly string[],
  root: string,
  text: string,
  includes: IncludeCheck,
  source: RegExp,
): readonly string[] {
  let byText = leftOut.get(files);
  if (!byText) leftOut.set(files, byText = new Map());
  const key = `${source.source}\n${text}`;
  let outside = byText.get(key);
  if (!outside) {
    outside = files.filter((file) =>
      source.test(file) && file.startsWith(root + "/") && !includes(file.slice(root.length + 1))
    );
    byText.set(key, outside);
  }
  return outside;
}

/**
 * Most files left out of a config that are read to see whether they import the project (~40 ms
 * for 2,000; at 200, 250 cached scripts in `.angular/` made every answer partial: a reviewer's).
 */
const MAX_READ = 2_000;
/** How many of the folders left out an answer names. */
const NAMED = 3;
/** TypeScript sources (not declarations): what a tsconfig.json is meant to take in. */
const SOURCE = /(?<!\.d)\.[cm]?tsx?$/;
/** A jsconfig.json's project is JavaScript (and TypeScript) sources. */
const JS_SOURCE = /(?<!\.d)\.[cm]?[jt]sx?$/;
/** JavaScript sources: in a tsconfig.json's project only with allowJs (or checkJs). */
const SCRIPT = /\.[cm]?jsx?$/;
/** Most files followed through imports from a config's `files` (tsc takes in what they import). */
const MAX_FOLLOWED = 2_000;

/**
 * A tsconfig.json's project covers the files its include (less exclude) lists; TypeScript files of
 * the project it leaves out (tests/ beside src/) are in projects of their own, searched only while
 * open, so answers miss their uses. Said, not changed: the config is the project's choice. A config
 * with project references (tsserver loads those) or one whose include cannot be read here is taken
 * to cover its project.
 */
async function configured(
  context: CoverageContext,
  name: string,
  text: string,
): Promise<CoverageAnswer> {
  const config: unknown = await parseJsonc(text);
  if (typeof config !== "object" || config === null || "references" in config) {
    return { partial: false };
  }
  // `include` and `files` come from the config it extends where it sets neither: one beside it.
  const effective = await withBase(context, config as Record<string, unknown>);
  const effectiveText = effective === config ? text : JSON.stringify(effective);
  let includes = await configIncludes(effectiveText);
  if (!includes) return { partial: false };
  if (Array.isArray(effective.files) && effective.include === undefined) {
    includes = await withImported(context, includes);
  }
  const left = new Map<string, number>();
  // Unknown (a base lspgate cannot read) is taken as allowing JavaScript: no reason is made of it.
  const allowJs = name === "jsconfig.json" || (await allowsJs(context, effective) ?? true);
  const source = allowJs ? JS_SOURCE : SOURCE;
  const all = await context.files();
  const outside = leftOutBy(all, context.root, effectiveText, includes, source);
  for (const [i, file] of outside.entries()) {
    // Only a file that imports the project can hold uses of it: a jest.config.ts beside src/
    // cannot. Past MAX_READ files, each is counted unread.
    if (i < MAX_READ && !importsProject(context, file, await context.readText(file), includes)) {
      continue;
    }
    const top = leftFolder(file.slice(context.root.length + 1));
    left.set(top, (left.get(top) ?? 0) + 1);
  }
  const reasons: string[] = [];
  if (left.size) {
    const names = [...left].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([n]) => n);
    const more = names.length > NAMED ? ` and ${names.length - NAMED} more` : "";
    reasons.push(`${name}'s include leaves ${names.slice(0, NAMED).join(", ")}${more} out`);
  }
  if (!allowJs) {
    const scripts = await scriptsLeftOut(context, all, effective, includes);
    if (scripts.length) {
      const what = context.name ? `may use \`${context.name}\`` : "import it";
      reasons.push(
        `${name} sets no allowJs, so its project leaves out JavaScript files that ${what} ` +
          `(${namedFiles(context, scripts)})`,
      );
    }
  }
  return reasons.length ? { partial: true, reason: reasons.join("; ") } : { partial: false };
}

/**
 * The folder a reason names for a file the include leaves out: its top folder (`tests/`), or the
 * dot-folder tsc's wildcards skipped (`src/.gen/`), or the file itself at the top.
 */
function leftFolder(rel: string): string {
  const parts = rel.split("/");
  const dotted = parts.findIndex((part, i) => part.startsWith(".") && i < parts.length - 1);
  if (dotted > 0) return parts.slice(0, dotted + 1).join("/") + "/";
  return parts.length > 1 ? parts[0] + "/" : rel;
}

/**
 * Whether a tsconfig.json takes JavaScript files into its project: `allowJs`, or `checkJs` (which
 * implies it), set in it or in the config beside it that it extends. A base elsewhere (a package's)
 * is not read: taken not to.
 */
async function allowsJs(
  context: CoverageContext,
  config: Record<string, unknown>,
): Promise<boolean | undefined> {
  let current = config;
  let folder = context.root;
  // The chain of `extends`: a file beside or above (`../../tsconfig.base.json`), or a package's
  // (`astro/tsconfigs/strict`, a reviewer's find: its allowJs was taken as unset). The first base
  // (TypeScript 5 takes a list; the last wins, and most name one) is followed.
  for (let depth = 0; depth < 8; depth++) {
    const own = jsOption(current);
    if (own !== undefined) return own;
    const base = [current.extends].flat()[0];
    if (base === undefined) return false;
    if (typeof base !== "string") return undefined;
    const found = await readBase(context, folder, base);
    if (!found) return undefined;
    current = found.config;
    folder = dirname(found.path);
  }
  return undefined;
}

/** The tsconfig an `extends` of a config in `folder` names, where it can be read in the root. */
async function readBase(
  context: CoverageContext,
  folder: string,
  spec: string,
): Promise<{ path: string; config: Record<string, unknown> } | undefined> {
  const base = spec.startsWith(".") ? join(folder, spec) : join(context.root, "node_modules", spec);
  for (const path of [base, `${base}.json`, join(base, "tsconfig.json")]) {
    if (!path.startsWith(context.root + "/")) return undefined;
    const text = await context.readText(path);
    if (text === undefined) continue;
    const parsed: unknown = await parseJsonc(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    return { path, config: parsed as Record<string, unknown> };
  }
  return undefined;
}

function jsOption(config: Record<string, unknown>): boolean | undefined {
  const options = config.compilerOptions;
  if (typeof options !== "object" || options === null) return undefined;
  const { allowJs, checkJs } = options as Record<string, unknown>;
  if (typeof allowJs === "boolean") return allowJs;
  return checkJs === true ? true : undefined;
}

/**
 * The JavaScript files of a project whose tsconfig.json sets no allowJs: tsserver keeps them out of
 * its project whatever the include says (src/legacy.js beside src/a.ts), so their uses are missed.
 * Left aside as a build's output: those under `outDir` or a dist/ folder, and a .js beside the .ts
 * of the same name. Counted: those holding the name asked about as a word, or without one, those
 * importing the project.
 */
async function scriptsLeftOut(
  context: CoverageContext,
  files: readonly string[],
  config: Record<string, unknown>,
  includes: IncludeCheck,
): Promise<string[]> {
  const options = config.compilerOptions as Record<string, unknown> | undefined;
  const outDir = typeof options?.outDir === "string"
    ? join(context.root, options.outDir) + "/"
    : undefined;
  const known = new Set(files);
  const scripts = files.filter((file) =>
    SCRIPT.test(file) && file.startsWith(context.root + "/") &&
    !file.slice(context.root.length).includes("/dist/") &&
    !(outDir && file.startsWith(outDir)) &&
    ![".ts", ".tsx", ".mts", ".cts"].some((ext) => known.has(file.replace(SCRIPT, ext)))
  );
  if (context.name) return await holdingName(context, scripts);
  const importing: string[] = [];
  for (const [i, file] of scripts.entries()) {
    if (i >= MAX_READ || importsProject(context, file, await context.readText(file), includes)) {
      importing.push(file);
    }
  }
  return importing;
}

/**
 * The config with `include`, `files` and `exclude` taken from the one it `extends` where it sets
 * none of them, when that is a file beside it (`./tsconfig.base.json`), whose patterns then mean
 * the same here; a package's base (`@tsconfig/node20`) or one elsewhere is left unread.
 */
async function withBase(
  context: CoverageContext,
  config: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const base = config.extends;
  if (typeof base !== "string" || !/^\.\/[^/]+$/.test(base)) return config;
  if (["include", "files", "exclude"].some((key) => key in config)) return config;
  const text = await context.readText(join(context.root, base));
  const parsed: unknown = text === undefined ? undefined : await parseJsonc(text);
  if (typeof parsed !== "object" || parsed === null) return config;
  const { include, files, exclude } = parsed as Record<string, unknown>;
  return { ...config, include, files, exclude };
}

/**
 * A config that lists `files` takes in what they import too (tsc follows imports): the files its
 * list reaches through relative imports, read up to MAX_FOLLOWED, count as included.
 */
async function withImported(
  context: CoverageContext,
  listed: IncludeCheck,
): Promise<IncludeCheck> {
  const project = (await context.files()).filter((f) => f.startsWith(context.root + "/"));
  const known = new Set(project);
  const reached = new Set(project.filter((f) => listed(f.slice(context.root.length + 1))));
  const queue = [...reached];
  let read = 0;
  while (queue.length && read++ < MAX_FOLLOWED) {
    const file = queue.shift()!;
    const text = await context.readText(file);
    if (text === undefined) continue;
    for (const path of relativeImports(file, text)) {
      const target = [
        path,
        ...[".ts", ".tsx", ".d.ts", ".js", "/index.ts", "/index.js"].map(
          (ext) => path.replace(/\.[cm]?js$/, "") + ext,
        ),
      ].find((candidate) => known.has(candidate));
      if (target && !reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return (rel) => reached.has(join(context.root, rel)) || listed(rel);
}

/** Whether a script's relative imports name a file the config includes (extension or not). */
function importsProject(
  context: CoverageContext,
  file: string,
  text: string | undefined,
  includes: (rel: string) => boolean,
): boolean {
  if (text === undefined) return true;
  return relativeImports(file, text).some((path) => {
    if (!path.startsWith(context.root + "/")) return false;
    const rel = path.slice(context.root.length + 1).replace(/\.[cm]?[jt]sx?$/, "");
    return [".ts", ".tsx", ".mts", ".cts", ".d.ts", "/index.ts", "/index.tsx", ".js", ".jsx"]
      .concat(["/index.js"])
      .some((ext) => includes(rel + ext));
  });
}
