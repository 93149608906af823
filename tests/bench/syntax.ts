// The syntax parsers' cost, measured and printed (never asserted: timings are noisy):
// - load: the tree-sitter runtime, then each grammar the first time it is used;
// - analyze: outline + parse errors of each fixture in tests/fixtures/syntax, median of 20;
// - large: a ~1 MiB TypeScript file and a ~1 MiB Python file, median of 5.
// Usage: deno run --allow-read tests/bench/syntax.ts (also part of `deno task bench`; --quick skips
// the large files)
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadTimes, SYNTAX_LANGUAGES, syntaxLanguageOf } from "../../src/syntax/mod.ts";
import { grammar } from "../../src/syntax/loader.ts";
// The parse itself, in this thread: lspgate runs it in a parse Worker, whose answers it keeps by
// text (so asking it the same text twenty times would time the cache).
import { analyzeHere } from "../../src/syntax/analyze.ts";

const analyzeSyntax = (language: Parameters<typeof analyzeHere>[0], text: string) =>
  analyzeHere(language, text, Infinity);

const FIXTURE = fileURLToPath(new URL("../fixtures/syntax/", import.meta.url));

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Grammar load and parse times, printed with `log`; `large` adds the ~1 MiB files. */
export async function measureSyntax(
  log: (line: string) => void,
  options: { large: boolean },
): Promise<void> {
  const started = performance.now();
  for (const language of SYNTAX_LANGUAGES) await grammar(language);
  log(
    `syntax load: runtime ${loadTimes.runtime?.toFixed(1)} ms, all ${SYNTAX_LANGUAGES.length} ` +
      `grammars ${(performance.now() - started).toFixed(0)} ms in all`,
  );
  log(
    "  " + SYNTAX_LANGUAGES.map((l) => `${l} ${loadTimes.grammars[l]?.toFixed(1)}`).join(", ") +
      " (ms each)",
  );

  const files = [...Deno.readDirSync(FIXTURE)].filter((e) => e.isFile).map((e) => e.name).sort();
  const rows: string[] = [];
  for (const name of files) {
    // TypeScript, JavaScript, JSON and YAML fixtures are kept as `*.fixture`, out of Deno's tools.
    const language = syntaxLanguageOf(name.replace(/\.fixture$/, ""));
    if (!language) continue;
    const text = await Deno.readTextFile(join(FIXTURE, name));
    const ms = await timed(20, () => analyzeSyntax(language, text));
    rows.push(`${name.replace(/\.fixture$/, "")} ${ms.toFixed(2)}`);
  }
  log(`syntax analyze (outline + errors), median of 20, ms: ${rows.join(", ")}`);

  for (const name of options.large ? ["outline.ts.fixture", "outline.py"] : []) {
    const unit = await Deno.readTextFile(join(FIXTURE, name));
    const text = unit.repeat(Math.ceil((1024 * 1024) / unit.length));
    const language = syntaxLanguageOf(name.replace(/\.fixture$/, ""))!;
    let symbols = 0;
    const ms = await timed(5, async () => {
      symbols = (await analyzeSyntax(language, text)).symbols.length;
    });
    log(
      `syntax analyze of ${(text.length / 1024).toFixed(0)} KiB of ${language}: ` +
        `${ms.toFixed(0)} ms median of 5 (${symbols} symbols)`,
    );
  }
}

if (import.meta.main) await measureSyntax(console.log, { large: true });
