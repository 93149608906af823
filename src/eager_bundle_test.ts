import assert from "node:assert/strict";
import { eagerModules } from "./eager_bundle.ts";

// esbuild's shape: the `__esm` helper, lazily initialized module bodies (one async), and other
// calls and arrows that are not module bodies.
const HELPER = "var y=(e,t)=>()=>(e&&(t=e(e=0)),t);";
const BUNDLE = HELPER +
  'var a,b,c;var initA=y(()=>{a=/\\)}/.test("}")?1:`${"}"}`;f(()=>{})});' +
  "var initB=y(async()=>{initA();b=await g(x=>x)});" +
  "var h=q(()=>{c=2});initB();";

Deno.test("eagerModules() puts every module body of the bundle, and only those, in parentheses", async () => {
  const { text, wrapped } = await eagerModules(BUNDLE);
  assert.equal(wrapped, 2);
  assert.equal(
    text,
    HELPER +
      'var a,b,c;var initA=y((()=>{a=/\\)}/.test("}")?1:`${"}"}`;f(()=>{})}));' +
      "var initB=y((async()=>{initA();b=await g(x=>x)}));" +
      "var h=q(()=>{c=2});initB();",
  );
  // Still a program that runs the same: the regular expression does not match "}", so `a` is the
  // template's "}", and `c` is never set (q never calls its argument).
  const run = new Function("q", "f", "g", `${text}; return [a, c];`);
  assert.deepEqual(run(() => {}, () => {}, (v: unknown) => v), ["}", undefined]);
});

Deno.test("eagerModules() refuses a bundle it does not recognize rather than write a wrong one", async () => {
  await assert.rejects(eagerModules("var y=1;y(()=>{});"), /__esm helper was not found/);
  await assert.rejects(eagerModules(HELPER + "var a=y(()=>{;"), /did not parse without errors/);
  // A call of the helper whose argument is not a module body (not written by esbuild).
  await assert.rejects(eagerModules(HELPER + "var a=y((()=>{}));"), /found 0 module bodies in 1/);
  await assert.rejects(eagerModules(HELPER + "var a='\u00e9';"), /not printable ASCII/);
});
