/**
 * The seccomp filter the Landlock launcher installs: a classic BPF program, built as bytes.
 *
 * @module
 */

const EACCES = 13;
const ENOSYS = 38;
// What the filter checks: seccomp_data's arch, syscall number and first argument (low half).
const ARCHES: Record<string, { audit: number; socket: number }> = {
  x86_64: { audit: 0xc000003e, socket: 41 },
  aarch64: { audit: 0xc00000b7, socket: 198 },
};
const IO_URING_SETUP = 425;
// AF_UNIX, AF_INET, AF_INET6, AF_PACKET.
const DENIED_FAMILIES = [1, 2, 10, 17];

/**
 * A seccomp filter that refuses new sockets of the families above (EACCES) and io_uring (which can
 * open sockets too), and kills a process of another architecture (no socketcall() way around).
 *
 * Rationale: Landlock (to ABI 7) does not restrict connect() to a UNIX socket file, nor UDP: a
 * server could reach lspgate's daemon socket, a docker.sock, or send datagrams out. Language
 * servers make their pipes with socketpair(), which stays allowed.
 */
export function socketFilter(): Uint8Array<ArrayBuffer> | undefined {
  const arch = ARCHES[Deno.build.arch];
  if (!arch) return undefined;
  const ALLOW = 0x7fff0000, ERRNO = 0x00050000, KILL = 0x80000000;
  // [code, k, jump-if-true label, jump-if-false label]; labels are the return instructions.
  type Op = [number, number, string?, string?];
  const ld = (offset: number): Op => [0x20, offset];
  const jeq = (k: number, t?: string, f?: string): Op => [0x15, k, t, f];
  const program: Op[] = [
    ld(4),
    jeq(arch.audit, undefined, "kill"),
    ld(0),
    [0x35, 0x40000000, "enosys"], // x32 syscall numbers (jge)
    jeq(IO_URING_SETUP, "enosys"),
    jeq(arch.socket, undefined, "allow"),
    ld(16),
    ...DENIED_FAMILIES.map((family) => jeq(family, "eacces")),
  ];
  const returns: Record<string, number> = {
    allow: ALLOW,
    eacces: ERRNO | EACCES,
    enosys: ERRNO | ENOSYS,
    kill: KILL,
  };
  const labels = Object.keys(returns);
  const bytes = new Uint8Array((program.length + labels.length) * 8);
  const view = new DataView(bytes.buffer);
  const jump = (from: number, label?: string) =>
    label === undefined ? 0 : program.length + labels.indexOf(label) - from - 1;
  program.forEach(([code, k, t, f], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jump(i, t));
    view.setUint8(i * 8 + 3, jump(i, f));
    view.setUint32(i * 8 + 4, k, true);
  });
  labels.forEach((label, i) => {
    const at = (program.length + i) * 8;
    view.setUint16(at, 0x06, true);
    view.setUint32(at + 4, returns[label] >>> 0, true);
  });
  return bytes;
}
