import assert from "node:assert/strict";
import { ProjectHealth } from "./project_health.ts";

Deno.test("ProjectHealth keeps rust-analyzer's serverStatus error message until a status says ok", () => {
  const health = new ProjectHealth();
  health.observe("experimental/serverStatus", { health: "ok", quiescent: false });
  assert.equal(health.problem, undefined);
  health.observe("experimental/serverStatus", {
    health: "error",
    quiescent: true,
    message: "Failed to load workspaces.\n\ncargo metadata failed: no registry",
  });
  assert.equal(
    health.problem,
    "Failed to load workspaces. | cargo metadata failed: no registry",
  );
  health.observe("experimental/serverStatus", { health: "ok", quiescent: true });
  assert.equal(health.problem, undefined);
  // Its warning that the standard library's own dev-dependencies are not there: whole anyway.
  health.observe("experimental/serverStatus", {
    health: "warning",
    quiescent: true,
    message: "Failed to read Cargo metadata with dependencies for sysroot of `/w/Cargo.toml`: " +
      "`cargo metadata` exited with an error: error: no matching package named `rand_xorshift`",
  });
  assert.equal(health.problem, undefined);
});

Deno.test("ProjectHealth takes an Error showMessage and manifest errors, not warnings or other files", () => {
  const health = new ProjectHealth();
  health.observe("window/showMessage", { type: 2, message: "just a warning" });
  // rust-analyzer's note on its own slowness is not about the project.
  health.observe("window/showMessage", {
    type: 1,
    message: "overly long loop turn took 171ms (event handling took 69ms): PrimeCaches",
  });
  health.observe("textDocument/publishDiagnostics", {
    uri: "file:///w/main.go",
    diagnostics: [{ severity: 1, message: "undefined: x", code: "UndeclaredName" }],
  });
  assert.equal(health.problem, undefined);
  health.observe("textDocument/publishDiagnostics", {
    uri: "file:///w/go.mod",
    diagnostics: [{ severity: 1, message: "bad go version" }],
  });
  assert.equal(health.problem, "go.mod: bad go version");
  health.observe("textDocument/publishDiagnostics", { uri: "file:///w/go.mod", diagnostics: [] });
  assert.equal(health.problem, undefined);
  health.observe("window/showMessage", { type: 1, message: "Error loading workspace: boom" });
  assert.equal(health.problem, "Error loading workspace: boom");
});

Deno.test("ProjectHealth lists files whose imports the server could not resolve, until they clear", () => {
  const health = new ProjectHealth();
  health.observe("textDocument/publishDiagnostics", {
    uri: "file:///w/main.py",
    diagnostics: [{
      severity: 1,
      code: "reportMissingImports",
      message: 'Import "requests" could not be resolved',
    }],
  });
  assert.deepEqual(health.brokenImports, {
    "file:///w/main.py": 'Import "requests" could not be resolved',
  });
  health.observe("textDocument/publishDiagnostics", { uri: "file:///w/main.py", diagnostics: [] });
  assert.equal(health.brokenImports, undefined);
});
