import { harness } from "./session.ts";
const [name, ...reqs] = Deno.args;
const h = await harness(name as "deno");
try {
  for (const r of reqs) {
    const req = JSON.parse(r);
    const t0 = performance.now();
    const res = await h.ask(req);
    console.log("=== ", r, `${Math.round(performance.now() - t0)}ms`);
    if (res.ok) { console.log(res.content[0].text); console.log(JSON.stringify(res.details)); }
    else console.log("ERROR", JSON.stringify(res.error));
  }
} finally { await h.close(); }
