// `deno task demo`: lspgate's main job on the bundled example workspace (tests/fixtures/deno),
// through `deno lsp`, which needs nothing installed. Each request line goes through the real
// JSON-lines front end; the demo prints the request and the text an agent would read.
import { fileURLToPath as fromFileUrl } from "node:url";
import { ADAPTERS, defaultConfig, Session } from "../mod.ts";
import { serveJsonLines } from "../src/frontends/json_lines.ts";

const root = fromFileUrl(new URL("./fixtures/deno/", import.meta.url));
const requests = [
  { id: 1, action: "symbols", file: "src/shapes.ts" },
  { id: 2, action: "definition", file: "src/main.ts", line: 7, symbol: "greet" },
  { id: 3, action: "hover", file: "src/main.ts", line: 11, symbol: "report" },
  { id: 4, action: "references", file: "src/shapes.ts", query: "Shape.area" },
  { id: 5, action: "implementation", file: "src/shapes.ts", query: "Shape" },
  { id: 6, action: "incoming_calls", file: "src/greet.ts", query: "greet" },
  { id: 7, action: "symbols", file: "*", query: "Circle" },
  { id: 8, action: "diagnostics", file: "src/**/*.ts" },
  {
    id: 9,
    action: "rename",
    file: "src/greet.ts",
    query: "greet",
    new_name: "welcome",
    apply: true,
  },
  { id: 10, action: "definition", file: "../../etc/passwd", line: 1, column: 1 },
];

const session = await Session.open({
  root,
  role: "subagent",
  allowMutations: false,
  adapters: ADAPTERS,
  config: defaultConfig(),
});
const input = new ReadableStream<Uint8Array>({
  start(controller) {
    for (const request of requests) {
      controller.enqueue(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    }
    controller.close();
  },
});
const answers = new Map<unknown, Record<string, unknown>>();
let buffered = "";
const output = new WritableStream<Uint8Array>({
  write(chunk) {
    buffered += new TextDecoder().decode(chunk);
    let newline;
    while ((newline = buffered.indexOf("\n")) !== -1) {
      const response = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      answers.set(response.id, response);
    }
  },
});
console.log(`lspgate demo: ${requests.length} requests to deno lsp on ${root}\n`);
await serveJsonLines(session, input, output);
for (const request of requests) {
  const response = answers.get(request.id) as
    | { ok: true; content: { text: string }[] }
    | { ok: false; error: { code: string; message: string } };
  console.log(`→ ${JSON.stringify(request)}`);
  console.log(
    response.ok
      ? response.content[0].text
      : `error ${response.error.code}: ${response.error.message}`,
  );
  console.log();
}
