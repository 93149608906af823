import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { type ConnectionOptions, JsonRpcConnection } from "./connection.ts";
import { encodeMessage } from "./framing.ts";
import { createMemoryPair } from "./memory.ts";
import { ResponseError } from "./messages.ts";

/** A client and a test server connected in memory, both listening. */
function connect(options: ConnectionOptions = {}) {
  const [clientSide, serverSide] = createMemoryPair();
  const client = new JsonRpcConnection(clientSide, options);
  const server = new JsonRpcConnection(serverSide, { name: "test server" });
  client.listen();
  server.listen();
  return {
    client,
    server,
    async [Symbol.asyncDispose]() {
      client.close();
      server.close();
      await Promise.all([client.closed, server.closed]);
    },
  };
}

/** Collects the server's notifications and resolves when one with the method arrives. */
function notificationsOf(server: JsonRpcConnection) {
  const received: { method: string; params: unknown }[] = [];
  const waiters: { method: string; resolve: (params: unknown) => void }[] = [];
  server.onNotification((method, params) => {
    received.push({ method, params });
    for (const waiter of waiters.filter((waiter) => waiter.method === method)) {
      waiter.resolve(params);
    }
  });
  return {
    received,
    next: (method: string) => new Promise<unknown>((resolve) => waiters.push({ method, resolve })),
  };
}

function hasCode(code: LspGateError["code"]) {
  return (error: unknown) => error instanceof LspGateError && error.code === code;
}

Deno.test("sendRequest() resolves with the peer's result", async () => {
  await using pair = connect();
  pair.server.onRequest((method, params) => ({ method, params }));
  const result = await pair.client.sendRequest("echo", { text: "→ ok" });
  assert.deepEqual(result, { method: "echo", params: { text: "→ ok" } });
});

Deno.test("sendRequest() matches responses that arrive out of order by id", async () => {
  await using pair = connect();
  const release: (() => void)[] = [];
  pair.server.onRequest(async (_method, params) => {
    await new Promise<void>((resolve) => release.push(resolve));
    return params;
  });
  const first = pair.client.sendRequest("slow", 1);
  const second = pair.client.sendRequest("slow", 2);
  while (release.length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  release[1]();
  assert.equal(await second, 2);
  release[0]();
  assert.equal(await first, 1);
});

Deno.test("sendRequest() rejects TIMEOUT and sends $/cancelRequest with its id", async () => {
  await using pair = connect();
  const notifications = notificationsOf(pair.server);
  pair.server.onRequest(() => new Promise(() => {}));
  const cancel = notifications.next("$/cancelRequest");
  const request = pair.client.sendRequest("never", undefined, {
    timeoutMs: 20,
  });
  await assert.rejects(request, (error: unknown) => {
    assert.ok(error instanceof LspGateError);
    assert.equal(error.code, "TIMEOUT");
    assert.equal(error.message, "never timed out after 20 ms");
    assert.deepEqual(error.data, { method: "never", timeoutMs: 20 });
    return true;
  });
  assert.deepEqual(await cancel, { id: 1 });
});

Deno.test("sendRequest() uses defaultTimeoutMs when the request sets none", async () => {
  await using pair = connect({ defaultTimeoutMs: 10 });
  pair.server.onRequest(() => new Promise(() => {}));
  await assert.rejects(pair.client.sendRequest("never"), hasCode("TIMEOUT"));
});

Deno.test("sendRequest() rejects CANCELLED on abort and sends $/cancelRequest", async () => {
  await using pair = connect();
  const notifications = notificationsOf(pair.server);
  pair.server.onRequest(() => new Promise(() => {}));
  const cancel = notifications.next("$/cancelRequest");
  const controller = new AbortController();
  const request = pair.client.sendRequest("never", undefined, {
    signal: controller.signal,
  });
  controller.abort();
  await assert.rejects(request, hasCode("CANCELLED"));
  assert.deepEqual(await cancel, { id: 1 });
});

Deno.test("sendRequest() with an already aborted signal rejects CANCELLED without sending", async () => {
  await using pair = connect();
  let requests = 0;
  pair.server.onRequest(() => requests++);
  await assert.rejects(
    pair.client.sendRequest("never", undefined, {
      signal: AbortSignal.abort(),
    }),
    hasCode("CANCELLED"),
  );
  assert.equal(await pair.client.sendRequest("counted"), 0);
  assert.equal(requests, 1);
});

Deno.test("close() rejects every pending request with SERVER_EXITED", async () => {
  await using pair = connect();
  pair.server.onRequest(() => new Promise(() => {}));
  const reasons: string[] = [];
  pair.client.onClose((reason) => reasons.push(reason));
  const pending = [pair.client.sendRequest("a"), pair.client.sendRequest("b")];
  pair.client.close("shutting down");
  for (const request of pending) {
    await assert.rejects(request, (error: unknown) => {
      assert.ok(error instanceof LspGateError);
      assert.equal(error.code, "SERVER_EXITED");
      assert.equal(error.message, "connection closed: shutting down");
      return true;
    });
  }
  await pair.client.closed;
  assert.deepEqual(reasons, ["shutting down"]);
  await assert.rejects(
    pair.client.sendRequest("later"),
    hasCode("SERVER_EXITED"),
  );
  await assert.rejects(
    pair.client.sendNotification("later"),
    hasCode("SERVER_EXITED"),
  );
});

Deno.test("the peer's stream ending rejects pending requests with SERVER_EXITED", async () => {
  await using pair = connect();
  pair.server.onRequest(() => new Promise(() => {}));
  const request = pair.client.sendRequest("never");
  // Let the request reach the server before it goes away.
  await new Promise((resolve) => setTimeout(resolve, 5));
  pair.server.close("crashed");
  await assert.rejects(request, (error: unknown) => {
    assert.ok(error instanceof LspGateError);
    assert.equal(error.code, "SERVER_EXITED");
    assert.equal(error.message, "connection closed: stream ended");
    return true;
  });
});

Deno.test("an error response rejects LSP_ERROR and keeps the server's code and message", async () => {
  await using pair = connect();
  pair.server.onRequest(() => {
    throw new ResponseError(-32802, "Content modified", { retry: true });
  });
  await assert.rejects(
    pair.client.sendRequest("textDocument/hover"),
    (error: unknown) => {
      assert.ok(error instanceof LspGateError);
      assert.equal(error.code, "LSP_ERROR");
      assert.equal(error.message, "Content modified");
      assert.deepEqual(error.data, {
        code: -32802,
        message: "Content modified",
        data: { retry: true },
      });
      return true;
    },
  );
});

Deno.test("a request from the peer without a handler is answered MethodNotFound", async () => {
  await using pair = connect();
  await assert.rejects(
    pair.server.sendRequest("workspace/configuration"),
    (error: unknown) => {
      assert.ok(error instanceof LspGateError);
      assert.equal((error.data as { code: number }).code, -32601);
      return true;
    },
  );
});

Deno.test("a handler's other throw is answered InternalError and undefined becomes null", async () => {
  await using pair = connect();
  pair.client.onRequest((method) => {
    if (method === "fail") throw new Error("boom");
  });
  await assert.rejects(pair.server.sendRequest("fail"), (error: unknown) => {
    assert.ok(error instanceof LspGateError);
    assert.deepEqual(error.data, {
      code: -32603,
      message: "boom",
      data: undefined,
    });
    return true;
  });
  assert.equal(await pair.server.sendRequest("nothing"), null);
});

Deno.test("notifications reach the peer's handler in order", async () => {
  await using pair = connect();
  const notifications = notificationsOf(pair.server);
  const last = notifications.next("done");
  await pair.client.sendNotification("first", { n: 1 });
  await pair.client.sendNotification("second");
  await pair.client.sendNotification("done");
  await last;
  assert.deepEqual(notifications.received, [
    { method: "first", params: { n: 1 } },
    { method: "second", params: undefined },
    { method: "done", params: undefined },
  ]);
});

Deno.test("a write to a closed transport rejects SERVER_EXITED instead of throwing unhandled", async () => {
  const [clientSide, serverSide] = createMemoryPair();
  const client = new JsonRpcConnection(clientSide);
  client.listen();
  // The peer goes away without reading: its end of our writes is cancelled.
  await serverSide.readable.cancel("gone");
  const reasons: string[] = [];
  client.onClose((reason) => reasons.push(reason));
  await assert.rejects(client.sendRequest("lost"), hasCode("SERVER_EXITED"));
  await assert.rejects(
    client.sendNotification("lost"),
    hasCode("SERVER_EXITED"),
  );
  await client.closed;
  assert.equal(reasons.length, 1);
  assert.match(reasons[0], /^write failed/);
});

Deno.test("junk from the peer is reported and the connection keeps working", async () => {
  const [clientSide, serverSide] = createMemoryPair();
  const junk: string[] = [];
  const client = new JsonRpcConnection(clientSide, {
    onJunk: (text) => junk.push(text),
  });
  client.listen();
  const writer = serverSide.writable.getWriter();
  const request = client.sendRequest("hello");
  const encoder = new TextEncoder();
  await writer.write(encoder.encode("server starting...\n"));
  await writer.write(encodeMessage({ jsonrpc: "2.0", surprise: true }));
  await writer.write(encodeMessage({ jsonrpc: "2.0", id: 1, result: "hi" }));
  assert.equal(await request, "hi");
  assert.deepEqual(junk, [
    "server starting...\n",
    '{"jsonrpc":"2.0","surprise":true}',
  ]);
  await writer.close();
  await client.closed;
  await serverSide.readable.cancel();
});

Deno.test("maxInFlight: at most that many requests reach the peer unanswered; the rest wait, in order, and one cancelled while waiting is never sent", async () => {
  await using pair = connect({ maxInFlight: 2 });
  const arrived: number[] = [];
  const answer: (() => void)[] = [];
  pair.server.onRequest((_method, params) =>
    new Promise((resolve) => {
      const n = (params as { n: number }).n;
      arrived.push(n);
      answer.push(() => resolve(n));
    })
  );
  const cancel = new AbortController();
  const asked = [1, 2, 3, 4, 5].map((n) =>
    pair.client.sendRequest("work", { n }, n === 4 ? { signal: cancel.signal } : {})
  );
  const settled = asked.map((p) => p.then((v) => v, (e) => e));
  const until = async (length: number) => {
    for (let i = 0; i < 100 && arrived.length < length; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  await until(2);
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(arrived, [1, 2], "only two reach the peer before an answer");
  cancel.abort();
  assert.ok(hasCode("CANCELLED")(await settled[3]));
  answer.shift()!();
  await until(3);
  assert.deepEqual(arrived, [1, 2, 3]);
  answer.shift()!();
  await until(4);
  // The cancelled request (4) was skipped: 5 took its turn.
  assert.deepEqual(arrived, [1, 2, 3, 5]);
  for (const reply of answer.splice(0)) reply();
  assert.deepEqual(await Promise.all([settled[0], settled[1], settled[2], settled[4]]), [
    1,
    2,
    3,
    5,
  ]);
});
