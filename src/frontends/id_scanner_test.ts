import assert from "node:assert/strict";
import { IdScanner } from "./id_scanner.ts";

function scan(...pieces: string[]): string | number | undefined {
  const scanner = new IdScanner();
  for (const piece of pieces) scanner.feed(new TextEncoder().encode(piece));
  return scanner.id;
}

Deno.test("IdScanner finds the top-level id wherever it is, in any pieces", () => {
  assert.equal(scan('{"jsonrpc":"2.0","id":7,"method":"x"}'), 7);
  assert.equal(scan('{"params":{"id":1,"a":"}\\"id\\":2"},', '"i', 'd" : "a\\"b"}'), 'a"b');
  assert.equal(scan('{"method":"x","params":{"arguments":{"id":3}}}'), undefined);
  assert.equal(scan('{"method":"x","id":null}'), undefined);
  assert.equal(scan('[{"id":1}]'), undefined);
});
