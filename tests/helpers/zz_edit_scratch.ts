import { harness } from "./session.ts";
const [name, file, target, line, sym, needle] = Deno.args;
const h = await harness(name as "deno");
try {
  const q = { action: "definition", file, line: Number(line), symbol: sym };
  const a = await h.ask(q);
  console.log(a.ok ? JSON.stringify(a.details.locations) : a.error);
  const text = await h.ws.read(target);
  await h.ws.write(target, text.replace(needle, "// one\n// two\n// three\n" + needle));
  const b = await h.ask(q);
  console.log(b.ok ? JSON.stringify(b.details.locations) : b.error);
  await new Promise((r) => setTimeout(r, 3000));
  const c = await h.ask(q);
  console.log("after 3s", c.ok ? JSON.stringify(c.details.locations) : c.error);
} finally { await h.close(); }
