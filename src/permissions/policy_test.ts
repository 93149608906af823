import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import {
  type Access,
  accessForRawMethod,
  decide,
  enforce,
  READONLY_LSP_METHODS,
  type Role,
} from "./policy.ts";

const ROLES: Role[] = ["main", "subagent"];
const ACCESSES: Access[] = ["read", "write"];

Deno.test("decide() over every role × allowMutations × access", () => {
  for (const role of ROLES) {
    for (const allowMutations of [false, true]) {
      for (const access of ACCESSES) {
        const decision = decide({ action: "rename with apply", access, role, allowMutations });
        const label = `${role} / allowMutations=${allowMutations} / ${access}`;
        const expected = access === "read" || (role === "main" && allowMutations);
        assert.equal(decision.allow, expected, label);
        if (decision.allow) continue;
        if (role === "subagent") {
          assert.equal(
            decision.reason,
            "rename with apply is a write action; --role subagent never runs write actions",
            label,
          );
          assert.doesNotMatch(decision.reason, /--allow-mutations/, label);
        } else {
          assert.match(decision.reason, /^rename with apply is a write action; /, label);
          assert.match(decision.reason, /--allow-mutations/, label);
          assert.match(decision.reason, /"allowMutations": true/, label);
        }
      }
    }
  }
});

Deno.test("decide() never lets a subagent write, whatever allowMutations says", () => {
  const decision = decide({
    action: "format with apply",
    access: "write",
    role: "subagent",
    allowMutations: true,
  });
  assert.deepEqual(decision, {
    allow: false,
    reason: "format with apply is a write action; --role subagent never runs write actions",
  });
});

Deno.test("decide() fails closed on values outside the types", () => {
  const odd = (request: Record<string, unknown>) =>
    decide(request as unknown as Parameters<typeof decide>[0]);
  assert.equal(
    odd({ action: "x", access: "write", role: "admin", allowMutations: true }).allow,
    false,
  );
  assert.equal(
    odd({ action: "x", access: undefined, role: "main", allowMutations: false }).allow,
    false,
  );
  assert.equal(
    odd({ action: "x", access: "write", role: "main", allowMutations: "yes" }).allow,
    false,
  );
});

Deno.test("enforce() throws ACTION_NOT_ALLOWED with the reason, and passes allowed requests", () => {
  assert.throws(
    () => enforce({ action: "restart", access: "write", role: "main", allowMutations: false }),
    (error) =>
      error instanceof LspGateError && error.code === "ACTION_NOT_ALLOWED" &&
      error.message.includes("--allow-mutations") && error.data?.action === "restart",
  );
  assert.throws(
    () => enforce({ action: "restart", access: "write", role: "subagent", allowMutations: true }),
    (error) =>
      error instanceof LspGateError && error.code === "ACTION_NOT_ALLOWED" &&
      error.message.includes("--role subagent"),
  );
  enforce({ action: "hover", access: "read", role: "subagent", allowMutations: false });
  enforce({ action: "rename with apply", access: "write", role: "main", allowMutations: true });
});

Deno.test("accessForRawMethod() makes workspace/executeCommand write-class", () => {
  assert.equal(accessForRawMethod("workspace/executeCommand"), "write");
  assert.equal(READONLY_LSP_METHODS.has("workspace/executeCommand"), false);
  const decision = decide({
    action: "request workspace/executeCommand",
    access: accessForRawMethod("workspace/executeCommand"),
    role: "main",
    allowMutations: false,
  });
  assert.equal(decision.allow, false);
});

Deno.test("accessForRawMethod() makes textDocument queries read-class", () => {
  for (
    const method of [
      "textDocument/hover",
      "textDocument/definition",
      "textDocument/references",
      "textDocument/documentSymbol",
      "textDocument/semanticTokens/full",
      "textDocument/codeAction",
      "textDocument/formatting",
      "textDocument/rename",
      "callHierarchy/incomingCalls",
      "typeHierarchy/subtypes",
      "workspace/symbol",
      "workspace/diagnostic",
      "workspace/willRenameFiles",
      "completionItem/resolve",
      "inlayHint/resolve",
    ]
  ) {
    assert.equal(accessForRawMethod(method), "read", method);
  }
  assert.equal(
    decide({
      action: "request",
      access: accessForRawMethod("textDocument/hover"),
      role: "subagent",
      allowMutations: false,
    }).allow,
    true,
  );
});

Deno.test("accessForRawMethod() makes everything off the allowlist write-class", () => {
  for (
    const method of [
      "workspace/applyEdit",
      "textDocument/didOpen",
      "textDocument/didChange",
      "textDocument/didSave",
      "workspace/didRenameFiles",
      "workspace/didChangeConfiguration",
      "initialize",
      "shutdown",
      "exit",
      "$/cancelRequest",
      "rust-analyzer/reloadWorkspace",
      "TEXTDOCUMENT/HOVER",
      "textDocument/hover ",
      "",
    ]
  ) {
    assert.equal(accessForRawMethod(method), "write", JSON.stringify(method));
  }
});
