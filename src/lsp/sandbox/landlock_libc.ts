// libc as the Landlock launcher calls it (Deno FFI, its --allow-ffi grant scoped to libc): the
// symbols, the flags whose values it needs, and failing with libc's own words.

/** open(2)'s O_PATH: a descriptor that names a file without opening it (what Landlock's rules take). */
export const O_PATH = 0o10000000;
/** open(2)'s O_CLOEXEC: the server never inherits the launcher's descriptors. */
export const O_CLOEXEC = 0o2000000;

/** libc's functions the launcher calls, bound from the file at `path`. */
export function libcOf(path: string) {
  return Deno.dlopen(path, {
    createRuleset: {
      name: "syscall",
      parameters: ["i64", "buffer", "usize", "u32"],
      result: "i64",
    },
    addRule: { name: "syscall", parameters: ["i64", "i32", "u32", "buffer", "u32"], result: "i64" },
    restrictSelf: { name: "syscall", parameters: ["i64", "i32", "u32"], result: "i64" },
    prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    openat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
    openatMode: { name: "openat", parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
    mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
    statx: {
      name: "syscall",
      parameters: ["i64", "i32", "buffer", "i32", "u32", "buffer"],
      result: "i64",
    },
    read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
    write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
    fchdir: { parameters: ["i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
    mkdir: { parameters: ["buffer", "u32"], result: "i32" },
    execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" },
    capset: { parameters: ["buffer", "buffer"], result: "i32" },
    malloc: { parameters: ["usize"], result: "usize" },
    copyIn: { name: "memcpy", parameters: ["usize", "buffer", "usize"], result: "usize" },
    prctlFilter: {
      name: "prctl",
      parameters: ["i32", "u64", "buffer", "u64", "u64"],
      result: "i32",
    },
    getuid: { parameters: [], result: "u32" },
    kill: { parameters: ["i32", "i32"], result: "i32" },
    readlink: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
    // Addresses as integers, read with memcpy: Deno's pointer views need an unscoped --allow-ffi.
    errnoLocation: { name: "__errno_location", parameters: [], result: "usize" },
    strerror: { parameters: ["i32"], result: "usize" },
    strdup: { parameters: ["buffer"], result: "usize" },
    strlen: { parameters: ["usize"], result: "usize" },
    memcpy: { parameters: ["buffer", "usize", "usize"], result: "usize" },
  });
}

/** The bound libc. */
export type Libc = ReturnType<typeof libcOf>;

/** `text` as a NUL-terminated C string. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text + "\0");
}

/**
 * errno as it reads now: for messages, and for ESRCH where a wrong word only leaves a folder.
 * JavaScript runs between a libc call and this read, and Deno's runtime on this thread was seen to
 * overwrite errno meanwhile (ENOENT after mkdir's EEXIST, and after Landlock's EINVAL): no
 * decision that could fail the launch rests on it.
 */
export function errno(libc: Libc): number {
  const value = new Int32Array(1);
  libc.symbols.memcpy(value, libc.symbols.errnoLocation(), 4n);
  return value[0];
}

function readCString(libc: Libc, address: bigint): string {
  const bytes = new Uint8Array(Number(libc.symbols.strlen(address)));
  libc.symbols.memcpy(bytes, address, BigInt(bytes.length));
  return new TextDecoder().decode(bytes);
}

/** Ends the launcher (exit 126) saying `what` failed and libc's reason. */
export function fail(libc: Libc, what: string, code = errno(libc)): never {
  const reason = `${readCString(libc, BigInt(libc.symbols.strerror(code)))} (errno ${code})`;
  console.error(`lspgate landlock launcher: ${what}: ${reason}`);
  Deno.exit(126);
}
