// file_url.ts gives what node:url gives: the same URL for a path holding any character of the
// Basic Multilingual Plane, astral ones and lone surrogates, the same path back, the same refusals.
import assert from "node:assert/strict";
import * as node from "node:url";
import { fileURLToPath, pathToFileURL } from "./file_url.ts";

Deno.test("file URLs: every character in a path is encoded as node:url encodes it, and read back", () => {
  const characters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code));
  characters.push("😀", "\ud800x", "x\udc00");
  for (const character of characters) {
    const path = `/a${character}b/c`;
    const href = pathToFileURL(path).href;
    assert.equal(href, node.pathToFileURL(path).href, JSON.stringify(path));
    assert.equal(fileURLToPath(href), node.fileURLToPath(href), href);
  }
  assert.equal(pathToFileURL("/a b/#?%/").href, "file:///a%20b/%23%3F%25/");
  // Relative paths are resolved from the current folder; a trailing slash is kept.
  for (const path of ["a/b", "a/", ".", "", "/", "//", "/x//"]) {
    assert.equal(pathToFileURL(path).href, node.pathToFileURL(path).href, JSON.stringify(path));
  }
});

Deno.test("file URLs: another scheme, a host or an encoded slash is refused as node:url refuses it", () => {
  for (const url of ["http://x/y", "file://host/a", "file:///a%2Fb", "file:///a%2fb"]) {
    assert.throws(() => node.fileURLToPath(url));
    assert.throws(() => fileURLToPath(url), TypeError, url);
  }
  for (
    const url of [
      "file://localhost/a",
      "FILE:///A",
      "file:/a",
      "file:///a%20b",
      "file:///%E2%80%A8",
    ]
  ) {
    assert.equal(fileURLToPath(url), node.fileURLToPath(url), url);
    assert.equal(fileURLToPath(new URL(url)), node.fileURLToPath(url), url);
  }
});
