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

Deno.test("IdScanner reads ids as JSON.parse does: the last top-level id wins, escaped keys decoded", () => {
  const line = (text: string) => {
    const parsed = JSON.parse(text).id;
    const scanned = scan(...text.match(/.{1,3}/gs)!);
    return { parsed, scanned };
  };
  for (
    const text of [
      '{"id":1,"method":"x","id":2}',
      '{"i\\u0064":5,"method":"x"}',
      '{"\\u0069\\u0064":"q","a":1}',
      '{"id":"first","params":{"id":9},"id":"last"}',
    ]
  ) {
    const { parsed, scanned } = line(text);
    assert.equal(scanned, parsed, text);
  }
  // A last id too long to echo leaves none; a later short one is taken.
  const long = JSON.stringify("b".repeat(300));
  assert.equal(scan(`{"id":1,"a":2,"id":${long}}`), undefined);
  assert.equal(scan(`{"id":${long},"a":2,"id":3}`), 3);
  assert.equal(scan('{"idx":1,"a":2}'), undefined);
  // A number its answer would not carry back as written is no id to answer under.
  assert.equal(scan('{"id":9007199254740993,"a":1}'), undefined);
  assert.equal(scan('{"id":1e0,"a":1}'), undefined);
  assert.equal(scan('{"id":-7,"a":1}'), -7);
  assert.equal(scan('{"i\\"d":1}'), undefined);
});
