// `deno task pack`'s step: writes the `deno run` flags of deno.json's start task (its grant, with
// any `$VARIABLE` left for the bin to expand when it runs) into the package's dist/grant.json, so
// the npm `lspgate` runs under exactly the grant `deno task start` does, whatever that becomes.
const root = new URL("../../", import.meta.url);
const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
const words = (tasks.start as string).split(" ");
if (words[0] !== "deno" || words[1] !== "run" || !words.includes("mod.ts")) {
  throw new Error(`deno.json's start task is not 'deno run … mod.ts': ${tasks.start}`);
}
const grant = words.slice(2, words.indexOf("mod.ts"));
await Deno.writeTextFile(
  new URL("integrations/npm/dist/grant.json", root),
  JSON.stringify(grant, null, 2) + "\n",
);
