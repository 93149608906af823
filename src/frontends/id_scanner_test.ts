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

Deno.test("IdScanner keeps almost nothing of a dropped line: a 130 MB key or string id, then the id or none", () => {
  // Past ~112M elements a kept array throws RangeError: a key or id that long once crashed it.
  const megabyte = new Uint8Array(1024 * 1024).fill(0x61);
  const huge = (before: string, after: string) => {
    const scanner = new IdScanner();
    scanner.feed(new TextEncoder().encode(before));
    for (let i = 0; i < 130; i++) scanner.feed(megabyte);
    scanner.feed(new TextEncoder().encode(after));
    return scanner.id;
  };
  assert.equal(huge('{"', '":1,"id":4}'), 4);
  assert.equal(huge('{"id":"', '","method":"x"}'), undefined);
  // An id of 257 bytes or more is none, whatever follows it.
  const long = JSON.stringify("b".repeat(300));
  assert.equal(scan(`{"id":${long},"a":1}`), undefined);
  assert.equal(scan(`{"id":${long} ,"a":1}`), undefined);
});
