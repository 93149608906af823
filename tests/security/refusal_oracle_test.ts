// A refusal reveals nothing about what lies outside: through Session.handle, for every action that
// takes a path, an outside target that exists and one that does not give the same error object,
// apart from the caller's own input. No existence oracle for the machine.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Harness, harness } from "../helpers/session.ts";

/** Outside paths in pairs: the first exists, the second does not. */
interface Pair {
  name: string;
  exists: string;
  missing: string;
}

/** Builds `outside/` beside the workspace and links in the workspace that lead there. */
async function plant(h: Harness, outside: string): Promise<Pair[]> {
  await Deno.mkdir(join(outside, "dir"), { recursive: true });
  await Deno.writeTextFile(join(outside, "secret.ts"), "export const secret = 'CANARY';\n");
  const link = (name: string, target: string) => Deno.symlink(target, h.ws.path(name));
  await link("src/in_exists.ts", join(outside, "secret.ts"));
  await link("src/in_missing.ts", join(outside, "missing.ts"));
  await link("src/proc_exists.ts", `/proc/self/root${outside}/secret.ts`);
  await link("src/proc_missing.ts", `/proc/self/root${outside}/missing.ts`);
  await link("src/stdin.ts", "/dev/stdin");
  await link("src/fd_missing.ts", "/proc/self/fd/987654");
  await link("outdir", outside);
  const rel = `../${outside.split("/").pop()}`;
  return [
    { name: "a relative path", exists: `${rel}/secret.ts`, missing: `${rel}/missing.ts` },
    { name: "an absolute path", exists: `${outside}/secret.ts`, missing: `${outside}/missing.ts` },
    { name: "a missing folder", exists: `${outside}/secret.ts`, missing: `${outside}/no/x.ts` },
    {
      name: "/proc/self/root",
      exists: `/proc/self/root${outside}/secret.ts`,
      missing: `/proc/self/root${outside}/missing.ts`,
    },
    { name: "/etc through /proc", exists: "/proc/self/root/etc/passwd", missing: "/etc/nope.ts" },
    { name: "/proc/self/fd", exists: "/proc/self/fd/0", missing: "/proc/self/fd/987654" },
    { name: "/dev/stdin and /dev/fd", exists: "/dev/stdin", missing: "/dev/fd/987654" },
    { name: "/proc/self/cwd", exists: "/proc/self/cwd", missing: "/proc/self/cwd/nope.ts" },
    { name: "a link in the workspace", exists: "src/in_exists.ts", missing: "src/in_missing.ts" },
    { name: "a link to /proc", exists: "src/proc_exists.ts", missing: "src/proc_missing.ts" },
    {
      name: "a link to stdin, a dangling fd",
      exists: "src/stdin.ts",
      missing: "src/fd_missing.ts",
    },
    { name: "a linked folder", exists: "outdir/secret.ts", missing: "outdir/missing.ts" },
    {
      name: "a file:// URI",
      exists: `file://${outside}/secret.ts`,
      missing: `file://${outside}/missing.ts`,
    },
  ];
}

/** The requests that take a path, with `path` put where the path goes. */
const REQUESTS: [string, (path: string) => Record<string, unknown>][] = [
  ["hover", (file) => ({ action: "hover", file, line: 1, column: 1 })],
  ["definition by query", (file) => ({ action: "definition", file, query: "secret" })],
  ["symbols", (file) => ({ action: "symbols", file })],
  ["diagnostics", (file) => ({ action: "diagnostics", file })],
  ["capabilities", (file) => ({ action: "capabilities", file })],
  ["rename preview", (file) => ({ action: "rename", file, query: "secret", new_name: "x" })],
  ["format preview", (file) => ({ action: "format", file })],
  ["rename_file destination", (file) => ({
    action: "rename_file",
    file: "src/format.ts",
    new_name: file,
  })],
  ["request payload URI", (file) => ({
    action: "request",
    file: "src/format.ts",
    query: "textDocument/documentSymbol",
    payload: { textDocument: { uri: file.startsWith("file:") ? file : `file://${file}` } },
  })],
];

/** The response with every occurrence of the caller's input taken out. */
function withoutInput(response: unknown, input: string): string {
  const text = JSON.stringify(response);
  const quoted = JSON.stringify(JSON.stringify(input)).slice(1, -1);
  return text.split(quoted).join("<input>").split(JSON.stringify(input)).join('"<input>"');
}

Deno.test("through Session.handle, an outside target that exists and one that does not are refused alike", async (t) => {
  const h = await harness("typescript");
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_outside_" }));
  try {
    const pairs = await plant(h, outside);
    for (const [label, request] of REQUESTS) {
      await t.step(label, async () => {
        for (const pair of pairs) {
          const asked = (path: string) => {
            // The request action checks URIs in its payload; a bare path there is no URI.
            const input = label === "request payload URI" && !path.startsWith("file:")
              ? (path.startsWith("/") ? `file://${path}` : `file://${h.ws.path(path)}`)
              : path;
            return { input, request: request(input) };
          };
          const a = asked(pair.exists);
          const b = asked(pair.missing);
          const first = await h.ask(a.request);
          const second = await h.ask(b.request);
          assert.equal(first.ok, false, `${pair.name}: ${JSON.stringify(first)}`);
          assert.equal(second.ok, false, `${pair.name}: ${JSON.stringify(second)}`);
          const [x, y] = [first, second].map((r) => ({ ...r, id: 0 }));
          assert.equal(withoutInput(x, a.input), withoutInput(y, b.input), pair.name);
          assert.equal(first.ok === false && first.error.code, "OUTSIDE_WORKSPACE", pair.name);
          const text = JSON.stringify(first) + JSON.stringify(second);
          assert.ok(!text.includes("CANARY"), text);
          if (!a.input.includes(outside) && !b.input.includes(outside)) {
            assert.ok(!text.includes(outside), `${pair.name} names the target: ${text}`);
          }
        }
      });
    }
    await t.step("diagnostics files[]: the entries for both read alike", async () => {
      for (const pair of pairs) {
        const answer = await h.ask({ action: "diagnostics", files: [pair.exists, pair.missing] });
        assert.ok(answer.ok, JSON.stringify(answer));
        const [x, y] = answer.details.files as Record<string, unknown>[];
        assert.equal(x.status, "error");
        assert.match(String(x.message), /^OUTSIDE_WORKSPACE: /);
        assert.equal(withoutInput(x, pair.exists), withoutInput(y, pair.missing), pair.name);
      }
    });
  } finally {
    await h.close();
    await Deno.remove(outside, { recursive: true });
  }
});
