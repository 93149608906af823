import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { fileUriToPath, isWithin, MAX_PATH_LENGTH, show, toAbsolute } from "./paths.ts";

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof LspGateError, String(error));
    return error.code;
  }
  return "ok";
}

Deno.test("isWithin() compares whole segments", () => {
  assert.equal(isWithin("/ws", "/ws"), true);
  assert.equal(isWithin("/ws/a", "/ws"), true);
  assert.equal(isWithin("/ws-evil", "/ws"), false);
  assert.equal(isWithin("/wsa/b", "/ws"), false);
  assert.equal(isWithin("/anything", "/"), true);
});

Deno.test("toAbsolute() normalises lexically against the root", () => {
  assert.equal(toAbsolute("src/../a.ts", "/ws"), "/ws/a.ts");
  assert.equal(toAbsolute("../../../../x", "/ws"), "/x");
  assert.equal(toAbsolute("/abs//x/./y/", "/ws"), "/abs/x/y");
  assert.equal(toAbsolute("file:///ws/a%20b.ts", "/ws"), "/ws/a b.ts");
  assert.equal(toAbsolute("FILE:///ws/x.ts", "/ws"), "/ws/x.ts");
  assert.equal(toAbsolute("a:b.ts", "/ws"), "/ws/a:b.ts");
});

Deno.test("toAbsolute() codes for bad input", () => {
  assert.equal(code(() => toAbsolute("", "/ws")), "INVALID_INPUT");
  assert.equal(code(() => toAbsolute("a\0", "/ws")), "INVALID_INPUT");
  assert.equal(code(() => toAbsolute("a".repeat(MAX_PATH_LENGTH + 1), "/ws")), "INVALID_INPUT");
  assert.equal(code(() => toAbsolute("a".repeat(MAX_PATH_LENGTH), "/ws")), "ok");
  assert.equal(code(() => toAbsolute("https://x/y", "/ws")), "INVALID_INPUT");
  assert.equal(code(() => toAbsolute("D:\\x", "/ws")), "OUTSIDE_WORKSPACE");
  assert.equal(code(() => toAbsolute("D:", "/ws")), "OUTSIDE_WORKSPACE");
  assert.equal(code(() => toAbsolute("\\\\srv\\share", "/ws")), "OUTSIDE_WORKSPACE");
  assert.equal(code(() => toAbsolute("a\\b", "/ws")), "INVALID_INPUT");
});

Deno.test("fileUriToPath() decodes and refuses tricks", () => {
  assert.equal(fileUriToPath("file:///ws/%C3%BC%F0%9F%98%80.ts"), "/ws/ü😀.ts");
  assert.equal(fileUriToPath("file:///ws/%2e%2e/x"), "/x");
  assert.equal(code(() => fileUriToPath("file:///ws/a%2Fb")), "INVALID_INPUT");
  assert.equal(code(() => fileUriToPath("file:///ws/a%5Cb")), "INVALID_INPUT");
  assert.equal(code(() => fileUriToPath("file:///ws/%E0%A4%A")), "INVALID_INPUT");
  assert.equal(code(() => fileUriToPath("file:///ws/a#frag")), "INVALID_INPUT");
  assert.equal(code(() => fileUriToPath("file://host/ws/a")), "OUTSIDE_WORKSPACE");
  assert.equal(code(() => fileUriToPath("file:///c:/x")), "OUTSIDE_WORKSPACE");
  assert.equal(code(() => fileUriToPath("vscode-remote://x/y")), "INVALID_INPUT");
});

Deno.test("show() quotes and shortens inputs for messages", () => {
  assert.equal(show("a\0b"), '"a\\u0000b"');
  assert.equal(show("x".repeat(500)), `"${"x".repeat(200)}…"`);
});
