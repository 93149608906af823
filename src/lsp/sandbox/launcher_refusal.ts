// How the Landlock launcher says it refused a scratch folder's parent (exit 126 and one stderr
// line), shared by the launcher that prints it and the client that reads it back.

/** The start of the launcher's refusal line; the path and the reason follow. */
export const LAUNCHER_REFUSAL = "lspgate landlock launcher: PERMISSION_DENIED: ";

/** The exit code the launcher refuses with (a command found but not run, as shells have it). */
export const LAUNCHER_REFUSAL_CODE = 126;

/** What a refusal line of `stderr` says (the path and why), or undefined when none. */
export function launcherRefusal(stderr: readonly string[]): string | undefined {
  const line = stderr.find((text) => text.startsWith(LAUNCHER_REFUSAL));
  return line?.slice(LAUNCHER_REFUSAL.length);
}
