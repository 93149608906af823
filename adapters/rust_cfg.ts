// What a `#[cfg(...)]` on a `mod` declaration comes to in rust-analyzer's build: a module whose
// cfg is off is inactive, and rust-analyzer does not analyse its file (measured: references to
// `hello` missed the calls in a `#[cfg(windows)] mod win;` and a `#[cfg(feature = "extra")]
// mod extra;` of a feature off by default, and said `partial: false`). Only what is known for
// certain is judged: the host target rust-analyzer builds for, `test` and `debug_assertions`
// (which it sets); a feature or a custom cfg (build scripts may set them) is not known here, and a
// predicate that depends on one is left to rust-analyzer (rust_coverage.ts asks it), in Kleene's
// three values: `all(windows, feature = "x")` is still off on Linux.
import type { Token } from "./rust_modules.ts";

/** The target rust-analyzer builds for, as cfg names it. */
export interface CfgTarget {
  /** The full triple, as the reason names it. */
  triple: string;
  os: string;
  family: string;
  arch: string;
  pointerWidth: string;
  endian: string;
}

/** This host as a target (rust-analyzer's, unless its settings name a `cargo.target`). */
export function hostTarget(): CfgTarget {
  const os = Deno.build.os === "darwin" ? "macos" : Deno.build.os;
  return {
    triple: Deno.build.target,
    os,
    family: os === "windows" ? "windows" : "unix",
    arch: Deno.build.arch,
    pointerWidth: "64",
    endian: "little",
  };
}

/**
 * The value of a cfg predicate (the tokens inside `cfg(...)`): true, false, or undefined where it
 * depends on what is not known here (or cannot be read).
 */
export function evaluateCfg(tokens: readonly Token[], target: CfgTarget): boolean | undefined {
  let at = 0;
  const predicate = (): boolean | undefined => {
    const name = tokens[at++];
    if (name?.kind !== "ident") throw new Error("not a cfg predicate");
    if (tokens[at]?.value === "(" && ["all", "any", "not"].includes(name.value)) {
      at++;
      const values: (boolean | undefined)[] = [];
      while (tokens[at]?.value !== ")") {
        values.push(predicate());
        if (tokens[at]?.value === ",") at++;
        else if (tokens[at]?.value !== ")") throw new Error("not a cfg list");
      }
      at++;
      if (name.value === "not") {
        if (values.length !== 1) throw new Error("not() takes one predicate");
        return values[0] === undefined ? undefined : !values[0];
      }
      const [decisive, otherwise] = name.value === "all" ? [false, true] : [true, false];
      if (values.includes(decisive)) return decisive;
      return values.includes(undefined) ? undefined : otherwise;
    }
    if (tokens[at]?.value === "=" && tokens[at + 1]?.kind === "str") {
      const value = tokens[at + 1].value;
      at += 2;
      return option(name.value, value, target);
    }
    return flag(name.value, target);
  };
  try {
    const value = predicate();
    return at === tokens.length ? value : undefined;
  } catch {
    return undefined;
  }
}

function flag(name: string, target: CfgTarget): boolean | undefined {
  if (name === "unix" || name === "windows") return target.family === name;
  // rust-analyzer sets both for the workspace's crates.
  if (name === "test" || name === "debug_assertions") return true;
  return undefined;
}

function option(name: string, value: string, target: CfgTarget): boolean | undefined {
  const known: Record<string, string> = {
    target_os: target.os,
    target_family: target.family,
    target_arch: target.arch,
    target_pointer_width: target.pointerWidth,
    target_endian: target.endian,
  };
  return name in known ? known[name] === value : undefined;
}
