import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { locate, span, spanWithin, type TextPosition, type TextSpan } from "./locate.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** The fixture workspaces under tests/fixtures/. */
export type FixtureName =
  | "deno"
  | "typescript"
  | "python"
  | "monorepo"
  | "errors"
  | "bash"
  | "json"
  | "css"
  | "html"
  | "yaml"
  | "dockerfile"
  | "c"
  | "gowork";

/** A fixture copied to a fresh temporary folder, with text-match helpers over its files. */
export class TempWorkspace implements AsyncDisposable {
  private constructor(readonly root: string) {}

  /** Copies `tests/fixtures/<name>` into a new temporary folder (outside this repository). */
  static async copy(name: FixtureName): Promise<TempWorkspace> {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `lspgate_${name}_` }));
    await copyTree(join(FIXTURES, name), root);
    return new TempWorkspace(root);
  }

  /** The absolute path of a workspace-relative file. */
  path(rel: string): string {
    return join(this.root, rel);
  }

  /** The text of a workspace-relative file. */
  read(rel: string): Promise<string> {
    return Deno.readTextFile(this.path(rel));
  }

  /** Writes a workspace-relative file. */
  write(rel: string, text: string): Promise<void> {
    return Deno.writeTextFile(this.path(rel), text);
  }

  /** Where the `nth` `needle` is in `rel`, 1-based code points. */
  async locate(rel: string, needle: string, nth = 1): Promise<TextPosition> {
    return locate(await this.read(rel), needle, nth);
  }

  /** The location `needle` covers in `rel`, shaped like `details.locations[]`. */
  async at(rel: string, needle: string, nth = 1): Promise<TextSpan & { file: string }> {
    return { file: rel, ...span(await this.read(rel), needle, nth) };
  }

  /** The location of `name` inside the `nth` `context` in `rel`. */
  async within(
    rel: string,
    context: string,
    name: string,
    nth = 1,
  ): Promise<TextSpan & { file: string }> {
    return { file: rel, ...spanWithin(await this.read(rel), context, name, nth) };
  }

  /** Deletes the folder. */
  async remove(): Promise<void> {
    await Deno.remove(this.root, { recursive: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.remove();
  }
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/** A fresh temp folder (its real path) holding `files`, by path relative to it. */
export async function writtenWorkspace(
  prefix: string,
  files: Record<string, string>,
): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return root;
}
