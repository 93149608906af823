import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import type { ActionContext } from "./types.ts";
import { applyPlan, applyPreviewed, editHash, planEdit } from "./workspace_edit.ts";

async function setup() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-edit-" }));
  await Deno.writeTextFile(join(root, "a.ts"), "one two\n");
  await Deno.writeTextFile(join(root, "b.ts"), "keep me\n");
  await Deno.symlink(join(root, "a.ts"), join(root, "alias.ts"));
  const workspace = await WorkspaceRoot.open(root);
  const context = {
    workspace,
    manager: { filesChanged: () => Promise.resolve() },
  } as unknown as ActionContext;
  const uri = (name: string) => pathToFileURL(join(root, name)).href;
  return { root, context, uri };
}

const at = (line: number, from: number, to: number) => ({
  start: { line, character: from },
  end: { line, character: to },
});

Deno.test("planEdit() merges two URIs of one real file, so neither edit is lost", async () => {
  const { root, context, uri } = await setup();
  try {
    const plan = await planEdit(context, {
      changes: {
        [uri("a.ts")]: [{ range: at(0, 0, 3), newText: "ONE" }],
        [uri("alias.ts")]: [{ range: at(0, 4, 7), newText: "TWO" }],
      },
    }, "utf-16");
    assert.equal(plan.files.length, 1);
    await applyPlan(context, plan);
    assert.equal(await Deno.readTextFile(join(root, "a.ts")), "ONE TWO\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("planEdit() refuses a create or rename onto an existing file unless told overwrite", async () => {
  const { root, context, uri } = await setup();
  try {
    for (
      const change of [
        { kind: "create" as const, uri: uri("b.ts") },
        { kind: "rename" as const, oldUri: uri("a.ts"), newUri: uri("b.ts") },
      ]
    ) {
      await assert.rejects(
        planEdit(context, { documentChanges: [change] }, "utf-16"),
        (error: Error & { code?: string }) => error.code === "EDIT_CONFLICT",
      );
    }
    const skipped = await planEdit(context, {
      documentChanges: [{ kind: "create", uri: uri("b.ts"), options: { ignoreIfExists: true } }],
    }, "utf-16");
    assert.equal(skipped.operations.length, 0);
    assert.equal(await Deno.readTextFile(join(root, "b.ts")), "keep me\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("applyPlan() writes nothing when a file changed since the edit was planned", async () => {
  const { root, context, uri } = await setup();
  try {
    const plan = await planEdit(context, {
      changes: {
        [uri("a.ts")]: [{ range: at(0, 0, 3), newText: "ONE" }],
        [uri("b.ts")]: [{ range: at(0, 0, 4), newText: "KEEP" }],
      },
    }, "utf-16");
    await Deno.writeTextFile(join(root, "b.ts"), "changed by someone\n");
    await assert.rejects(
      applyPlan(context, plan),
      (error: Error & { code?: string }) => error.code === "EDIT_CONFLICT",
    );
    assert.equal(await Deno.readTextFile(join(root, "a.ts")), "one two\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("editHash() is the same for the same edit of the same files, in any order", async () => {
  const { root, context, uri } = await setup();
  try {
    const one = { range: at(0, 0, 3), newText: "ONE" };
    const keep = { range: at(0, 0, 4), newText: "KEEP" };
    const a = await planEdit(
      context,
      { changes: { [uri("a.ts")]: [one], [uri("b.ts")]: [keep] } },
      "utf-16",
    );
    const b = await planEdit(
      context,
      { changes: { [uri("b.ts")]: [keep], [uri("a.ts")]: [one] } },
      "utf-16",
    );
    const hash = await editHash(context, a);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(await editHash(context, b), hash);
    // Another new text, another range, another file's content, a file operation: another hash.
    const other = await planEdit(context, {
      changes: { [uri("a.ts")]: [{ ...one, newText: "1" }], [uri("b.ts")]: [keep] },
    }, "utf-16");
    assert.notEqual(await editHash(context, other), hash);
    const moved = await planEdit(context, {
      changes: { [uri("a.ts")]: [one], [uri("b.ts")]: [keep] },
    }, "utf-16");
    moved.operations.push({
      kind: "rename",
      path: moved.files[0].path,
      target: join(root, "c.ts") as never,
    });
    assert.notEqual(await editHash(context, moved), hash);
    await Deno.writeTextFile(join(root, "b.ts"), "keep me!\n");
    const changed = await planEdit(context, {
      changes: { [uri("a.ts")]: [one], [uri("b.ts")]: [keep] },
    }, "utf-16");
    assert.notEqual(await editHash(context, changed), hash);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("applyPreviewed() writes only the edit whose hash was previewed", async () => {
  const { root, context, uri } = await setup();
  try {
    const edit = { changes: { [uri("a.ts")]: [{ range: at(0, 0, 3), newText: "ONE" }] } };
    const preview = await editHash(context, await planEdit(context, edit, "utf-16"));
    const stale = await planEdit(context, {
      changes: { [uri("a.ts")]: [{ range: at(0, 0, 3), newText: "UNO" }] },
    }, "utf-16");
    await assert.rejects(
      applyPreviewed(context, stale, await editHash(context, stale), preview),
      (error: Error & { code?: string }) => error.code === "EDIT_CONFLICT",
    );
    assert.equal(await Deno.readTextFile(join(root, "a.ts")), "one two\n");
    const same = await planEdit(context, edit, "utf-16");
    await applyPreviewed(context, same, await editHash(context, same), preview);
    assert.equal(await Deno.readTextFile(join(root, "a.ts")), "ONE two\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
