// What the process boundary alone costs: a Deno process that echoes each line it reads, asked one
// request-sized line at a time with a pause between (as paths.ts asks), writing its answer
// through Deno's blocking pool (`write`, as lspgate's JSON lines do) or with `writeSync` on its
// own thread. Prints each way's median round trip in ms; asserts nothing.
//
// Usage: deno run -A tests/bench/pipe_echo.ts [--rounds 200] [--pause 20]
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: { serve: { type: "string" }, rounds: { type: "string" }, pause: { type: "string" } },
});

if (values.serve) {
  // The echo: one read, one write of what was read, until stdin ends.
  const buffer = new Uint8Array(65536);
  for (;;) {
    const read = await Deno.stdin.read(buffer);
    if (read === null) break;
    const bytes = buffer.subarray(0, read);
    if (values.serve === "sync") Deno.stdout.writeSync(bytes);
    else for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
  }
  Deno.exit(0);
}

const ROUNDS = Number(values.rounds ?? 200);
const PAUSE_MS = Number(values.pause ?? 20);
const line = new TextEncoder().encode(
  JSON.stringify({ id: 1, action: "hover", file: "pygments/lexer.py", line: 120, column: 9 }) +
    "\n",
);
const ways = ["write", "sync"].map((way) => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", import.meta.filename!, "--serve", way],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  return { way, child, writer: child.stdin.getWriter(), reader: child.stdout.getReader() };
});
const times = new Map<string, number[]>();
for (let round = 0; round < ROUNDS + 10; round++) {
  for (const echo of round % 2 ? ways : [...ways].reverse()) {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    const start = performance.now();
    await echo.writer.write(line);
    for (let got = 0; got < line.length;) got += (await echo.reader.read()).value?.length ?? 0;
    // The first rounds warm both processes up.
    if (round >= 10) times.set(echo.way, [...times.get(echo.way) ?? [], performance.now() - start]);
  }
}
for (const echo of ways) {
  await echo.writer.close();
  await echo.child.status;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [way, xs] of times) {
  console.log(
    `${way === "sync" ? "writeSync" : "write (blocking pool)"}: ${median(xs).toFixed(3)} ms`,
  );
}
