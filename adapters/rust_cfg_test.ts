import assert from "node:assert/strict";
import { evaluateCfg } from "./rust_cfg.ts";
import { LINUX } from "../tests/helpers/rust_target.ts";
import { tokenize } from "./rust_modules.ts";

Deno.test("evaluateCfg() judges the target's cfgs and leaves features and custom cfgs unknown", () => {
  const cases: [string, boolean | undefined][] = [
    ["unix", true],
    ["windows", false],
    ['target_os = "linux"', true],
    ['target_os = "macos"', false],
    ['target_family = "wasm"', false],
    ['target_arch = "aarch64"', false],
    ['target_pointer_width = "64"', true],
    ["test", true],
    ["debug_assertions", true],
    ['feature = "x"', undefined],
    ["docsrs", undefined],
    ['target_env = "musl"', undefined],
    ['all(windows, feature = "x")', false],
    ['all(unix, feature = "x")', undefined],
    ['any(windows, feature = "x")', undefined],
    ['any(unix, feature = "x")', true],
    ["not(windows)", true],
    ['not(feature = "x")', undefined],
    ["all()", true],
    ["any()", false],
    ['all(unix, not(any(windows, target_os = "macos")),)', true],
    ["unix windows", undefined], // unreadable
    ["not(unix, windows)", undefined],
  ];
  for (const [text, want] of cases) {
    assert.equal(evaluateCfg(tokenize(text), LINUX), want, text);
  }
});
