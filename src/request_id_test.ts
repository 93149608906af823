import assert from "node:assert/strict";
import { idWrittenExactly } from "./request_id.ts";
import { IdScanner } from "./frontends/id_scanner.ts";

/** What the JSON-lines front end asks: the id JSON.parse read, and whether the line wrote it so. */
function check(line: string): boolean {
  return idWrittenExactly(line, (JSON.parse(line) as { id: number }).id);
}

Deno.test("an id written once and plainly is taken from the text", () => {
  assert.equal(check('{"id":7,"action":"hover"}'), true);
  assert.equal(check('{"action":"hover", "id" : -12 }'), true);
  assert.equal(check('{"id":9007199254740991}'), true);
});

Deno.test("an id JSON.parse rounds or rewrites is not written exactly", () => {
  assert.equal(check('{"id":1.0,"action":"hover"}'), false);
  assert.equal(check('{"id":1e0}'), false);
  assert.equal(check('{"id":1.0000000000000001}'), false);
});

Deno.test("lines the plain reading cannot settle are read by the scanner, as before", () => {
  // An id twice, a nested id, "id" as a value, an escaped key or an escape anywhere.
  for (
    const line of [
      '{"id":1.0,"id":1}',
      '{"id":1,"id":1.0}',
      '{"id":1,"args":{"id":2.0}}',
      '{"symbol":"id","id":3}',
      '{"id":4,"i\\u0064":4.0}',
      '{"text":"a \\"id\\": 5","id":5}',
    ]
  ) {
    const scanner = new IdScanner();
    scanner.feed(new TextEncoder().encode(line));
    assert.equal(check(line), scanner.id === JSON.parse(line).id, line);
  }
  assert.equal(check('{"symbol":"id","id":3}'), true);
});
