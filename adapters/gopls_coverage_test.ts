import assert from "node:assert/strict";
import { type Build, constraintMatches, nameMatches } from "./gopls_coverage.ts";

const LINUX: Build = {
  os: "linux",
  arch: "amd64",
  tags: new Set(["linux", "amd64", "gc", "unix"]),
};

Deno.test("nameMatches() follows Go's file name rule for GOOS and GOARCH suffixes", () => {
  const cases: [string, boolean][] = [
    ["greet.go", true],
    ["windows.go", true], // the first element is no suffix
    ["greet_windows.go", false],
    ["greet_linux.go", true],
    ["greet_linux_test.go", true],
    ["greet_windows_test.go", false],
    ["greet_linux_arm64.go", false],
    ["greet_linux_amd64.go", true],
    ["greet_arm64.go", false],
    ["greet_unix.go", true], // unix is no file name suffix
  ];
  for (const [name, want] of cases) assert.equal(nameMatches(name, LINUX), want, name);
});

Deno.test("constraintMatches() reads //go:build before the package clause, else // +build lines", () => {
  const cases: [string, boolean][] = [
    ["//go:build ignore\n\npackage main\n", false],
    ["//go:build linux && (amd64 || arm64)\n\npackage m\n", true],
    ["//go:build !windows\n\npackage m\n", true],
    ["//go:build unix && !cgo\n\npackage m\n", true],
    ["//go:build windows || darwin\n\npackage m\n", false],
    ["//go:build go1.21\n\npackage m\n", true],
    ["// Copyright.\n\n//go:build mytag\n\npackage m\n", false],
    ["package m\n\n//go:build ignore\n", true], // after package: no constraint
    ["// +build linux,amd64 windows\n\npackage m\n", true],
    ["// +build !linux\n\npackage m\n", false],
    ["// +build linux\n// +build 386\n\npackage m\n", false],
    ["//go:build (linux\n\npackage m\n", true], // unreadable: taken as in the build
  ];
  for (const [text, want] of cases) assert.equal(constraintMatches(text, LINUX), want, text);
});
