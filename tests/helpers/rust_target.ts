import type { CfgTarget } from "../../adapters/rust_cfg.ts";

/** x86_64 Linux, the build rust-analyzer loads on this machine, as rust_cfg.ts describes a target. */
export const LINUX: CfgTarget = {
  triple: "x86_64-unknown-linux-gnu",
  os: "linux",
  family: "unix",
  arch: "x86_64",
  pointerWidth: "64",
  endian: "little",
};
