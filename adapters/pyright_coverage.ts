// pyright searches (references, renames, workspace symbols) the files its config includes and the
// open ones. A project config that narrows it leaves the rest out, silently: attrs' pyproject.toml
// has `[tool.pyright] include = ["typing-examples/baseline.py"]`, and a workspace symbol search for
// `instance_of` (in src/attr/validators.py) answered "no match". The config is the project's own
// choice, so it is kept; the answer says what it leaves out.
import { join } from "../src/posix_path.ts";
import { parseJsonc } from "../src/jsonc.ts";
import { GlobMatcher } from "../src/permissions/glob.ts";
import { fromFileUrl } from "../src/servers/uri.ts";
import type { CoverageAnswer, CoverageContext, CoverageHook } from "./coverage.ts";
import { holdingName, namedFiles } from "./name_coverage.ts";

/** A file of an installed environment, not of the project. */
const ENVIRONMENT =
  /(^|\/)(site-packages|dist-packages)\/|(^|\/)\.(pixi|direnv|nox|tox|conda|venv)\//;

/** How many of the folders left out an answer names. */
const NAMED = 3;

/**
 * What pyright excludes where the config gives no `exclude` (its configOptions'
 * defaultExcludes): a helper found references to `greet` complete without the use in .ci/smoke.py.
 */
const DEFAULT_EXCLUDE = ["**/node_modules", "**/__pycache__", "**/.*"];

/**
 * See the file comment: partial, naming the folders left out, when include/exclude leave any.
 * Asked about a name, only the files left out (by the config or pyright's default exclude) that
 * hold it as a word count, and are named. `sections`: the pyproject.toml tables the server reads,
 * in its order.
 */
export function pyrightCoverage(sections: readonly string[]): CoverageHook {
  return (context) => coverage(context, sections);
}

async function coverage(
  context: CoverageContext,
  sections: readonly string[],
): Promise<CoverageAnswer> {
  const config: Partial<PyrightConfig> = await readConfig(context, sections) ?? {};
  const configured = config.include !== undefined || config.exclude !== undefined;
  // Without a name, a config's choice is said (as before); pyright's own defaults are not.
  if (!configured && !context.name) return { partial: false };
  // An open file is searched whatever the config says: the one asked in is.
  const asked = fromFileUrl(context.uri);
  const all = leftOut(await context.files(), context.root, config);
  const left = asked !== undefined && all.has(asked)
    ? new Map([...all].filter(([file]) => file !== asked))
    : all;
  if (left.size === 0) return { partial: false };
  const server = sections[0].replace(/^tool\./, "");
  if (context.name) {
    const holding = await holdingName(context, [...left.keys()]);
    if (holding.length === 0) return { partial: false };
    const by = new Set(holding.map((file) => left.get(file)!));
    return {
      partial: true,
      reason: `${whose(config, by, server)} ${
        namedFiles(context, holding)
      } out, where \`${context.name}\` is a word`,
    };
  }
  // The folders with most files left out first: src/ and tests/ before docs/.
  const counts = new Map<string, number>();
  for (const file of left.keys()) {
    const rel = file.slice(context.root.length + 1);
    const top = rel.includes("/") ? rel.slice(0, rel.indexOf("/") + 1) : rel;
    counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  const names = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([n]) => n);
  const more = names.length > NAMED ? ` and ${names.length - NAMED} more` : "";
  return {
    partial: true,
    reason: `${whose(config, new Set(left.values()), server)} ` +
      `${names.slice(0, NAMED).join(", ")}${more} out`,
  };
}

/** Each file a config leaves out, and by what. */
type LeftOut = ReadonlyMap<string, "include" | "exclude">;

/**
 * The files left out of a file list, kept per list (the workspace walk's is the same array until a
 * file is created or deleted) while the root and the config's paths are the same: matching each of
 * pygments' 345 files against them took ~1.5 ms of every references question.
 */
const leftOutByList = new WeakMap<readonly string[], { key: string; left: LeftOut }>();

function leftOut(files: readonly string[], root: string, config: Partial<PyrightConfig>): LeftOut {
  const key = JSON.stringify([root, config.include ?? null, config.exclude ?? null]);
  const kept = leftOutByList.get(files);
  if (kept?.key === key) return kept.left;
  const included = matchers(config.include ?? ["."]);
  const excluded = matchers(config.exclude ?? DEFAULT_EXCLUDE);
  const left = new Map<string, "include" | "exclude">();
  for (const file of files) {
    if (!file.startsWith(root + "/")) continue;
    const rel = file.slice(root.length + 1);
    // Installed packages (an environment in `.pixi/`, `.direnv/`, `.nox/`) use names of their own,
    // not the project's: a common name would be partial everywhere.
    if (ENVIRONMENT.test(rel)) continue;
    const out = !included.some((m) => m.matches(rel))
      ? "include"
      : excluded.some((m) => m.matches(rel))
      ? "exclude"
      : undefined;
    if (out) left.set(file, out);
  }
  leftOutByList.set(files, { key, left });
  return left;
}

/**
 * What left files out, and its verb, as a reason says it: `pyproject.toml's [tool.pyright] include
 * leaves`, or pyright's default exclude where the config gives none.
 */
function whose(config: Partial<PyrightConfig>, by: ReadonlySet<string>, server: string): string {
  const keys: string[] = [];
  if (by.has("include")) keys.push("include");
  if (by.has("exclude") && config.exclude !== undefined) keys.push("exclude");
  const defaults = by.has("exclude") && config.exclude === undefined;
  const parts = keys.length ? [`${config.source} ${keys.join(" and ")}`] : [];
  if (defaults) parts.push(`${server}'s default exclude (${DEFAULT_EXCLUDE.join(", ")})`);
  return `${parts.join(" and ")} ${keys.length + (defaults ? 1 : 0) > 1 ? "leave" : "leaves"}`;
}

interface PyrightConfig {
  /** Where it was read, as the reason names it: `pyproject.toml's [tool.pyright]`, `pyrightconfig.json's`. */
  source: string;
  include?: string[];
  exclude?: string[];
}

/** pyrightconfig.json if there is one (it wins, as in pyright), else pyproject.toml's section. */
async function readConfig(
  context: CoverageContext,
  sections: readonly string[],
): Promise<PyrightConfig | undefined> {
  const json = await context.readText(join(context.root, "pyrightconfig.json"));
  if (json !== undefined) return await parsed(json, sections, parseJsonConfig);
  const toml = await context.readText(join(context.root, "pyproject.toml"));
  if (toml === undefined) return undefined;
  return await parsed(toml, sections, parseTomlConfig);
}

/**
 * The last configs parsed, by their text: every question reads its root's config, unchanged
 * between questions, and parsing it again cost a references question on pygments ~0.1 ms.
 */
const parsedConfigs: {
  text: string;
  sections: readonly string[];
  parse: ConfigParser;
  config?: PyrightConfig;
}[] = [];
type ConfigParser = (
  text: string,
  sections: readonly string[],
) => PyrightConfig | undefined | Promise<PyrightConfig | undefined>;
const PARSED_KEPT = 8;

async function parsed(
  text: string,
  sections: readonly string[],
  parse: ConfigParser,
): Promise<PyrightConfig | undefined> {
  // By the parser too: the same text read as pyrightconfig.json is not what it said as TOML.
  const kept = parsedConfigs.find((p) =>
    p.text === text && p.sections === sections && p.parse === parse
  );
  if (kept) return kept.config;
  const config = await parse(text, sections);
  parsedConfigs.unshift({ text, sections, parse, config });
  parsedConfigs.length = Math.min(parsedConfigs.length, PARSED_KEPT);
  return config;
}

async function parseJsonConfig(json: string): Promise<PyrightConfig | undefined> {
  const value: unknown = await parseJsonc(json);
  if (typeof value !== "object" || value === null) return undefined;
  const { include, exclude } = value as Record<string, unknown>;
  return { source: "pyrightconfig.json's", include: strings(include), exclude: strings(exclude) };
}

function parseTomlConfig(toml: string, sections: readonly string[]): PyrightConfig | undefined {
  for (const section of sections) {
    const table = tomlTable(toml, section);
    if (table === undefined) continue;
    return {
      source: `pyproject.toml's [${section}]`,
      include: tomlStrings(table, "include"),
      exclude: tomlStrings(table, "exclude"),
    };
  }
  return undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

/**
 * A pyright path list as matchers: a path names a file or a folder (and all under it), `**` and
 * `*` are wildcards, relative to the config's folder.
 */
function matchers(paths: string[]): GlobMatcher[] {
  const compiled: GlobMatcher[] = [];
  for (const raw of paths) {
    const path = raw.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    if (path === "" || path === ".") {
      compiled.push(new GlobMatcher("**", "/"));
      continue;
    }
    try {
      compiled.push(new GlobMatcher(path, "/"), new GlobMatcher(`${path}/**`, "/"));
    } catch {
      // Outside the project ("../shared") or not a pattern: it names nothing here.
    }
  }
  return compiled;
}

/** The text of a TOML table (`[tool.pyright]`) up to the next table header; undefined if absent. */
export function tomlTable(text: string, name: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const header = new RegExp(`^\\s*\\[\\s*${name.replaceAll(".", "\\s*\\.\\s*")}\\s*\\]\\s*(#.*)?$`);
  const start = lines.findIndex((line) => header.test(line));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && /^\s*\[/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).join("\n");
}

/** The strings of a key's array in a TOML table's text (`include = ["a", 'b']`, over lines). */
export function tomlStrings(table: string, key: string): string[] | undefined {
  const at = new RegExp(`^\\s*${key}\\s*=\\s*\\[`, "m").exec(table);
  if (!at) return undefined;
  const values: string[] = [];
  const item = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(#[^\n]*)|(\])/g;
  item.lastIndex = at.index + at[0].length;
  for (let match; (match = item.exec(table));) {
    if (match[4]) return values;
    if (match[3]) continue;
    values.push(match[1] !== undefined ? JSON.parse(`"${match[1]}"`) : match[2]);
  }
  return values;
}
