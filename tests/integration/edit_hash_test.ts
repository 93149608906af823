// Apply writes what was previewed, against the real typescript-language-server: every preview
// (rename, rename_file, format, code_actions) gives details.edit_hash; an apply carrying a stale one
// is EDIT_CONFLICT with every file byte-identical; an apply carrying the current one writes exactly
// the previewed changes.
import assert from "node:assert/strict";
import { type Harness, harness, type Success, textOf } from "../helpers/session.ts";

/** One file's previewed edits, as `details.changes[]` gives them (1-based code points). */
interface Change {
  file: string;
  edits: { line: number; column: number; endLine: number; endColumn: number; newText: string }[];
  operation?: "create" | "rename" | "delete";
  newFile?: string;
}

/** Every file of the workspace, byte for byte. */
async function snapshot(root: string, dir = root, out = new Map<string, string>()) {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await snapshot(root, path, out);
    else if (entry.isFile) out.set(path.slice(root.length + 1), await Deno.readTextFile(path));
  }
  return out;
}

/** What the workspace holds after the preview's changes, computed from the preview alone. */
function expectedAfter(files: Map<string, string>, changes: Change[]): Map<string, string> {
  const out = new Map(files);
  for (const change of changes) {
    if (change.operation === "rename") {
      out.set(change.newFile!, out.get(change.file)!);
      out.delete(change.file);
      continue;
    }
    const lines = out.get(change.file)!.split("\n").map((l) => [...l]);
    // From the end, so earlier positions still hold.
    const edits = [...change.edits].sort((a, b) => b.line - a.line || b.column - a.column);
    for (const e of edits) {
      const head = lines.slice(0, e.line - 1);
      const tail = lines.slice(e.endLine);
      const joined = [
        ...lines[e.line - 1].slice(0, e.column - 1),
        ...e.newText,
        ...lines[e.endLine - 1].slice(e.endColumn - 1),
      ].join("").split("\n").map((l) => [...l]);
      lines.splice(0, lines.length, ...head, ...joined, ...tail);
    }
    out.set(change.file, lines.map((l) => l.join("")).join("\n"));
  }
  return out;
}

function hashOf(preview: Success): string {
  const hash = preview.details.edit_hash;
  assert.equal(typeof hash, "string", JSON.stringify(preview.details));
  assert.match(hash as string, /^[0-9a-f]{64}$/);
  assert.ok(textOf(preview).includes(hash as string), "the text gives the hash too");
  return hash as string;
}

/**
 * Preview, change `touched` on disk, apply with the old hash: EDIT_CONFLICT and nothing written;
 * preview again, apply with the new hash: exactly the previewed changes are on disk.
 */
async function staleThenFresh(
  h: Harness,
  request: Record<string, unknown>,
  touched: string,
): Promise<void> {
  const stale = hashOf(await h.ok(request));
  await h.ws.write(touched, (await h.ws.read(touched)) + "// changed by another tool\n");
  const before = await snapshot(h.ws.root);
  const message = await h.fails({ ...request, apply: true, edit_hash: stale }, "EDIT_CONFLICT");
  assert.match(message, /Nothing was written/);
  assert.deepEqual(await snapshot(h.ws.root), before, "a stale edit_hash writes nothing");

  const preview = await h.ok(request);
  const fresh = hashOf(preview);
  assert.notEqual(fresh, stale);
  const expected = expectedAfter(before, preview.details.changes as Change[]);
  const applied = await h.ok({ ...request, apply: true, editHash: fresh });
  assert.equal(applied.details.applied, true);
  assert.equal(applied.details.edit_hash, fresh);
  assert.deepEqual(applied.details.changes, preview.details.changes);
  assert.deepEqual(await snapshot(h.ws.root), expected, "written exactly as previewed");
}

Deno.test("typescript-language-server: an apply with edit_hash writes what was previewed or nothing", async (t) => {
  const h = await harness("typescript", { allowMutations: true });
  try {
    await t.step("the same preview twice gives the same edit_hash", async () => {
      const request = {
        action: "rename",
        file: "src/format.ts",
        query: "formatPrice",
        new_name: "x",
      };
      assert.equal(hashOf(await h.ok(request)), hashOf(await h.ok(request)));
    });

    await t.step("rename: a file changed after the preview is EDIT_CONFLICT", async () => {
      await staleThenFresh(
        h,
        { action: "rename", file: "src/format.ts", query: "formatPrice", new_name: "price_text" },
        "src/models.ts",
      );
      assert.match(await h.ws.read("src/index.ts"), /price_text\(basket\.price\(\)\)/);
    });

    await t.step("format: the file changed after the preview is EDIT_CONFLICT", async () => {
      await h.ws.write("src/ugly.ts", "export const point={x:1,y:2};\n");
      await staleThenFresh(h, { action: "format", file: "src/ugly.ts" }, "src/ugly.ts");
      assert.match(await h.ws.read("src/ugly.ts"), /point = \{ x: 1, y: 2 \};/);
    });

    await t.step("code_actions: the file changed after the preview is EDIT_CONFLICT", async () => {
      await h.ws.write(
        "src/unused.ts",
        "export function f(): number {\n  const first = 1;\n  return 0;\n}\n",
      );
      await staleThenFresh(h, {
        action: "code_actions",
        file: "src/unused.ts",
        line: 2,
        column: 9,
        query: "Remove unused declaration for: 'first'",
      }, "src/unused.ts");
      assert.doesNotMatch(await h.ws.read("src/unused.ts"), /first/);
    });

    await t.step(
      "rename_file: an importer changed after the preview is EDIT_CONFLICT",
      async () => {
        await staleThenFresh(
          h,
          { action: "rename_file", file: "src/cart.ts", new_name: "src/shop/cart.ts" },
          "src/index.ts",
        );
        assert.match(await h.ws.read("src/index.ts"), /from "\.\/shop\/cart\.ts"/);
      },
    );

    await t.step("the server answering differently is EDIT_CONFLICT too", async () => {
      const request = {
        action: "rename",
        file: "src/models.ts",
        query: "Bundle",
        new_name: "Pack",
      };
      const hash = hashOf(await h.ok(request));
      const before = await snapshot(h.ws.root);
      await h.fails(
        { ...request, new_name: "Crate", apply: true, edit_hash: hash },
        "EDIT_CONFLICT",
      );
      assert.deepEqual(await snapshot(h.ws.root), before);
    });

    await t.step("edit_hash without apply, or malformed, is INVALID_INPUT", async () => {
      const request = { action: "format", file: "src/index.ts" };
      await h.fails({ ...request, edit_hash: "0".repeat(64) }, "INVALID_INPUT");
      await h.fails({ ...request, apply: true, edit_hash: "not-a-hash" }, "INVALID_INPUT");
    });
  } finally {
    await h.close();
  }
});
