// `deno task bundle`'s step after `deno bundle`: marks each module body in the bundle for V8 to
// compile with the script rather than at its first call.
//
// Rationale: esbuild (`deno bundle`) wraps a module that is imported lazily, as lspgate's program
// is (worker_entry.ts), in an arrow function handed to its `__esm` helper, run at the first import.
// V8 compiles a function only when it is first called, unless it is written in parentheses (its
// sign of a function called at once), and Deno's code cache of a script holds what was compiled
// with it: every start compiled the ~430 module bodies again on the main thread. In parentheses,
// they are compiled with the bundle and kept in its code cache. Measured on the shipped file
// (clangd fixture, cold to the first correct definition, alternating, medians of 21): 275 → 254 ms
// and 254 → 223; without a code cache 360 → 343; memory at rest unchanged (55.5 MiB).
import { parse } from "./syntax/loader.ts";

/**
 * `text` with every arrow function passed to the `__esm` helper wrapped in parentheses, and how
 * many. Throws where the bundle is not what this expects (no helper, a parse with errors, a call
 * of the helper not found): nothing is written then.
 */
export async function eagerModules(text: string): Promise<{ text: string; wrapped: number }> {
  // Indices of the syntax tree are those of the text where it is ASCII, as esbuild writes it.
  if (/[^\x20-\x7e\t\n\r]/.test(text)) throw new Error("the bundle is not printable ASCII");
  // esbuild's `__esm`, minified: var y=(e,t)=>()=>(e&&(t=e(e=0)),t);
  const helper = /\bvar ([\w$]+)=\(([\w$]+),([\w$]+)\)=>\(\)=>\(\2&&\(\3=\2\(\2=0\)\),\3\);/
    .exec(text)?.[1];
  if (!helper) throw new Error("deno bundle's __esm helper was not found in the bundle");
  const tree = await parse("javascript", text, performance.now() + 120_000);
  if (!tree) throw new Error("the bundle's parse ran out of time");
  try {
    if (tree.rootNode.hasError) throw new Error("the bundle did not parse without errors");
    const arrows: [number, number][] = [];
    for (const call of tree.rootNode.descendantsOfType("call_expression")) {
      const callee = call?.childForFieldName("function");
      if (callee?.type !== "identifier" || callee.text !== helper) continue;
      const body = call!.childForFieldName("arguments")?.namedChild(0);
      if (body?.type === "arrow_function") arrows.push([body.startIndex, body.endIndex]);
    }
    const calls = text.match(
      new RegExp(`[^\\w$.]${helper.replace("$", "\\$")}\\((async)?\\(`, "g"),
    );
    if (arrows.length === 0 || arrows.length !== calls?.length) {
      throw new Error(
        `found ${arrows.length} module bodies in ${calls?.length ?? 0} calls of ${helper}()`,
      );
    }
    let out = "";
    let at = 0;
    for (const [start, end] of arrows.sort((a, b) => a[0] - b[0])) {
      out += `${text.slice(at, start)}(${text.slice(start, end)})`;
      at = end;
    }
    return { text: out + text.slice(at), wrapped: arrows.length };
  } finally {
    tree.delete();
  }
}

// A bundle it does not recognize (another Deno's `deno bundle`) is left as it is, and said: it
// runs the same, only starts slower. The bundle task's test holds this Deno's output eager.
if (import.meta.main) {
  const file = Deno.args[0];
  if (!file) throw new Error("usage: eager_bundle.ts BUNDLE.js");
  try {
    const { text, wrapped } = await eagerModules(await Deno.readTextFile(file));
    await Deno.writeTextFile(file, text);
    console.error(`lspgate: ${wrapped} module bodies compiled eagerly in ${file}`);
  } catch (error) {
    console.error(
      `lspgate: ${file} left as deno bundle wrote it (its module bodies compiled at first use): ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
}
