import { harness } from "./session.ts";
const h = await harness("deno");
try {
  const uri = `file://${h.ws.root}/src/main.ts`;
  const item = { name: "main", kind: 12, uri, range: { start: { line: 4, character: 0 }, end: { line: 11, character: 1 } }, selectionRange: { start: { line: 5, character: 16 }, end: { line: 5, character: 20 } } };
  await h.ask({ action: "definition", file: "src/main.ts", query: "main" });
  const r = await h.ask({ action: "request", file: "src/main.ts", query: "callHierarchy/outgoingCalls", payload: { item } });
  console.log(JSON.stringify(r.ok ? r.details.result : r, null, 0));
} finally { await h.close(); }
