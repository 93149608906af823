// Every WebAssembly module the syntax parsers load (loader.ts WASM_FILES), imported statically so
// that `deno cache` of this file fetches them ahead: the README's `deno install` runs it, and an
// installed lspgate then asks no registry at first use (a helper's find: offline, a Ruby outline
// failed "could not be loaded", and Deno's download lines broke the hook's one-line stderr).
// Bare names, as deno.json's imports pin them. Never imported by the program: `deno bundle`
// cannot parse `import source`.

import source coreWasm from "web-tree-sitter/web-tree-sitter.wasm";
import source typescriptWasm from "tree-sitter-typescript/tree-sitter-typescript.wasm";
import source tsxWasm from "tree-sitter-typescript/tree-sitter-tsx.wasm";
import source javascriptWasm from "tree-sitter-javascript/tree-sitter-javascript.wasm";
import source pythonWasm from "tree-sitter-python/tree-sitter-python.wasm";
import source goWasm from "tree-sitter-go/tree-sitter-go.wasm";
import source rustWasm from "tree-sitter-rust/tree-sitter-rust.wasm";
import source cWasm from "tree-sitter-c/tree-sitter-c.wasm";
import source cppWasm from "tree-sitter-cpp/tree-sitter-cpp.wasm";
import source javaWasm from "tree-sitter-java/tree-sitter-java.wasm";
import source rubyWasm from "tree-sitter-ruby/tree-sitter-ruby.wasm";
import source bashWasm from "tree-sitter-bash/tree-sitter-bash.wasm";
import source jsonWasm from "tree-sitter-json/tree-sitter-json.wasm";
import source yamlWasm from "@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm";

export const GRAMMARS = [
  coreWasm,
  typescriptWasm,
  tsxWasm,
  javascriptWasm,
  pythonWasm,
  goWasm,
  rustWasm,
  cWasm,
  cppWasm,
  javaWasm,
  rubyWasm,
  bashWasm,
  jsonWasm,
  yamlWasm,
];
