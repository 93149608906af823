// The attack fixture: a workspace full of traps, canaries outside it, and a hostile server.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Adapter, defaultConfig, type Response, Session } from "../../mod.ts";

/** The scripted hostile language server. */
export const HOSTILE_SERVER = fileURLToPath(new URL("../fakes/hostile_server.ts", import.meta.url));

/** The lspgate checkout (for `--allow-read` in the Deno-wall test). */
export const LSPGATE_DIR = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/** A successful response. */
export type Success = Extract<Response, { ok: true }>;

/** What one path looked like: kind, size, mtime, and its content or link target. */
interface Entry {
  kind: "file" | "dir" | "link" | "other";
  size: number;
  mtime: number | undefined;
  content?: string;
  target?: string;
}

/** Every path below a folder (symlinks recorded, never followed), with what it held. */
export type Snapshot = Map<string, Entry>;

/** Options for a session over the fixture. */
export interface OpenOptions {
  role?: "main" | "subagent";
  allowMutations?: boolean;
  /** Adapters to use instead of the hostile one. */
  adapters?: readonly Adapter[];
  /** Folders that may be read but never written (the config key `readOnlyRoots`). */
  readOnlyRoots?: string[];
  /** The folder the hostile server points at (default: `outside/`). */
  hostileOutside?: string;
}

const A_TS = "export const alpha = 1;\n" +
  "export function greet(name: string): string {\n" +
  "  return `hi ${name}`;\n" +
  "}\n";
const B_TS = 'import { alpha, greet } from "./a.ts";\n' + "console.log(greet(String(alpha)));\n";

let nextId = 1;

/**
 * A temp folder `base/` with `ws/` (the workspace root, full of symlinks that lead out),
 * `ws-evil/` (a sibling whose name starts with the root's), `outside/` (canaries) and
 * `scratch/` (the hostile server's log). The canaries hold a token unique to this fixture on
 * every line, so any read of them for context shows up in a response.
 */
export class AttackFixture {
  /** Secret text on every line of every canary: must never appear in a response. */
  readonly token = `CANARY-${crypto.randomUUID()}`;
  /** Text of the read-only root's files: may be shown, never written. */
  readonly libraryToken = `LIBRARY-${crypto.randomUUID()}`;
  readonly #sessions: Session[] = [];
  #baseline?: Snapshot;

  private constructor(readonly base: string) {}

  /** The workspace root. */
  get root(): string {
    return join(this.base, "ws");
  }
  /** A sibling whose path starts with the root's path (`/tmp/x/ws-evil` vs `/tmp/x/ws`). */
  get evil(): string {
    return `${this.root}-evil`;
  }
  /** The canary folder outside the workspace. */
  get outside(): string {
    return join(this.base, "outside");
  }
  /** A folder some tests configure as a read-only root: readable, never writable. */
  get library(): string {
    return join(this.base, "library");
  }
  /** The canary file every hostile answer points at. */
  get secret(): string {
    return join(this.outside, "secret.ts");
  }
  /** A canary whose token sits only in comments (for real servers). */
  get commentSecret(): string {
    return join(this.outside, "comment_secret.ts");
  }
  /** The hostile server's log of requests received and applyEdit answers. */
  get log(): string {
    return join(this.base, "scratch", "hostile.jsonl");
  }
  /** `ws/src/leak.ts` → `outside/secret.ts`. */
  get link(): string {
    return join(this.root, "src", "leak.ts");
  }
  /** `ws/linkdir` → `outside/`. */
  get linkDir(): string {
    return join(this.root, "linkdir");
  }

  /** Builds the fixture and records the canaries' baseline. */
  static async create(): Promise<AttackFixture> {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_attack_" }));
    const fx = new AttackFixture(base);
    const canary = (name: string) =>
      Array.from({ length: 8 }, (_, i) => `export const ${name}${i} = "${fx.token}-${i}";\n`)
        .join("");
    await Deno.mkdir(join(fx.root, "src"), { recursive: true });
    await Deno.mkdir(fx.evil);
    await Deno.mkdir(fx.outside);
    await Deno.mkdir(join(base, "scratch"));
    await Deno.mkdir(fx.library);
    await Deno.writeTextFile(
      join(fx.library, "secret.ts"),
      Array.from({ length: 8 }, (_, i) => `export const lib${i} = "${fx.libraryToken}";\n`).join(
        "",
      ),
    );
    await Deno.writeTextFile(fx.secret, canary("secret"));
    await Deno.writeTextFile(join(fx.outside, "other.ts"), canary("other"));
    // For real servers, which show types: the token only in comments, so a server that reads it
    // (as ordinary processes may) cannot echo it back in a type.
    await Deno.writeTextFile(
      fx.commentSecret,
      `// ${fx.token}\nexport const alpha = 2;\n// ${fx.token}\n`,
    );
    await Deno.writeTextFile(join(fx.evil, "secret.ts"), canary("evil"));
    await Deno.symlink("loop", join(fx.outside, "loop"));
    await Deno.writeTextFile(join(fx.root, "src/a.ts"), A_TS);
    await Deno.writeTextFile(join(fx.root, "src/b.ts"), B_TS);
    const src = join(fx.root, "src");
    await Deno.symlink("a.ts", join(src, "alias.ts")); // inside → inside
    await Deno.symlink(fx.secret, fx.link); // file → outside
    await Deno.symlink(fx.outside, fx.linkDir); // folder → outside
    await Deno.symlink("loop_b.ts", join(src, "loop_a.ts"));
    await Deno.symlink("loop_a.ts", join(src, "loop_b.ts"));
    await Deno.symlink(join(fx.outside, "planted.ts"), join(src, "dangling.ts"));
    await Deno.symlink("hop2.ts", join(src, "hop1.ts")); // inside → inside → folder link → out
    await Deno.symlink("../linkdir/secret.ts", join(src, "hop2.ts"));
    await Deno.symlink("../../outside/secret.ts", join(src, "rel_out.ts"));
    fx.#baseline = await fx.outsideSnapshot();
    return fx;
  }

  /** An adapter that runs the hostile server for `.ts` files, pointing at `outside`. */
  hostileAdapter(outside = this.outside): Adapter {
    const args = ["--outside", outside, "--link", this.link, "--link-dir", this.linkDir];
    return {
      id: "hostile",
      languages: { ".ts": "typescript" },
      rootMarkers: [],
      priority: 1,
      readiness: "immediate",
      installHint: "",
      resolve: () =>
        Promise.resolve({
          command: [
            Deno.execPath(),
            "run",
            "-A",
            "--no-config",
            HOSTILE_SERVER,
            ...args,
            "--log",
            this.log,
          ],
        }),
    };
  }

  /** Opens a session over the root (hostile adapter unless told otherwise); closed by remove(). */
  async open(options: OpenOptions = {}): Promise<Session> {
    const session = await Session.open({
      root: this.root,
      role: options.role ?? "main",
      allowMutations: options.allowMutations ?? false,
      adapters: options.adapters ?? [this.hostileAdapter(options.hostileOutside)],
      config: { ...defaultConfig(), readOnlyRoots: options.readOnlyRoots ?? [] },
    });
    this.#sessions.push(session);
    return session;
  }

  /**
   * Sends one request (with a fresh id); asserts the canary token is not in the answer and the
   * canaries are unchanged after it.
   */
  async ask(session: Session, request: Record<string, unknown>): Promise<Response> {
    const response = await session.handle({ id: nextId++, ...request });
    this.assertNoLeak(response, request);
    await this.assertOutsideUntouched();
    return response;
  }

  /** Asserts `value` (a response, a log…) never shows a canary's content. */
  assertNoLeak(value: unknown, request?: unknown): void {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    assert.ok(
      !text.includes(this.token),
      `a canary outside the workspace was read and shown for ${JSON.stringify(request)}: ${text}`,
    );
  }

  /** `outside/`, `ws-evil/`, `library/` and the base folder's names, as they are now. */
  async outsideSnapshot(): Promise<Snapshot> {
    const snapshot = await snapshotTree(this.outside);
    for (const dir of [this.evil, this.library]) await snapshotTree(dir, snapshot);
    for await (const entry of Deno.readDir(this.base)) {
      snapshot.set(join(this.base, entry.name), { kind: "other", size: 0, mtime: undefined });
    }
    return snapshot;
  }

  /** Asserts no canary changed (content, mtime, links) and no file appeared outside the root. */
  async assertOutsideUntouched(): Promise<void> {
    assert.ok(this.#baseline, "the fixture has no baseline");
    assert.deepEqual(
      await this.outsideSnapshot(),
      this.#baseline,
      "something outside the workspace was written",
    );
  }

  /** The hostile server's log: requests received and applyEdit answers. */
  async logEntries(): Promise<Record<string, unknown>[]> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.log);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
    return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  }

  /**
   * Closes every session (servers shut down), then, with `check`, asserts the canaries are
   * untouched and no canary text ever reached the hostile server; always deletes the folder.
   */
  async remove(options: { check?: boolean } = {}): Promise<void> {
    try {
      for (const session of this.#sessions.splice(0)) await session.close();
      if (options.check) {
        await this.assertOutsideUntouched();
        this.assertNoLeak(await this.logEntries(), "the hostile server's log");
      }
    } finally {
      await Deno.remove(this.base, { recursive: true });
    }
  }
}

/** Runs `fn` on a fresh fixture; afterwards nothing outside may be changed or shown. */
export async function withFixture(fn: (fx: AttackFixture) => Promise<void>): Promise<void> {
  const fx = await AttackFixture.create();
  let passed = false;
  try {
    await fn(fx);
    passed = true;
  } finally {
    // After a failure, the failure is what the reader needs; do not mask it.
    await fx.remove({ check: passed });
  }
}

/** Every path below `dir` (not following symlinks) with its kind, size, mtime and content. */
export async function snapshotTree(dir: string, into: Snapshot = new Map()): Promise<Snapshot> {
  const info = await Deno.lstat(dir);
  into.set(dir, await entryOf(dir, info));
  if (!info.isDirectory) return into;
  for await (const entry of Deno.readDir(dir)) await snapshotTree(join(dir, entry.name), into);
  return into;
}

async function entryOf(path: string, info: Deno.FileInfo): Promise<Entry> {
  const mtime = info.mtime?.getTime();
  if (info.isSymlink) {
    return { kind: "link", size: info.size, mtime, target: await Deno.readLink(path) };
  }
  if (info.isFile) {
    return { kind: "file", size: info.size, mtime, content: await Deno.readTextFile(path) };
  }
  // A folder's mtime changes when an entry is created or removed in it.
  return { kind: info.isDirectory ? "dir" : "other", size: 0, mtime };
}

/** Asserts a refusal with `code`; `mentions` must each appear in the message. */
export function assertRefused(
  response: Response,
  code: string,
  request: unknown,
  mentions: string[] = [],
): string {
  if (response.ok) {
    assert.fail(
      `expected ${code} for ${JSON.stringify(request)}, got success: ${response.content[0].text}`,
    );
  }
  assert.equal(
    response.error.code,
    code,
    `for ${JSON.stringify(request)}: ${response.error.message}`,
  );
  for (const word of mentions) {
    assert.ok(
      response.error.message.includes(word),
      `the ${code} message should name ${word}: ${response.error.message}`,
    );
  }
  return response.error.message;
}

/** Asserts success and returns the response. */
export function assertOk(response: Response, request: unknown): Success {
  if (!response.ok) {
    assert.fail(
      `expected success for ${JSON.stringify(request)}, got ${response.error.code}: ` +
        response.error.message,
    );
  }
  return response;
}

/**
 * The source-context lines shown under `head` (`file:line:column`) in a locations answer: the
 * text lists each location as a block, its head line first, separated by blank lines.
 */
export function contextUnder(text: string, head: string): string[] {
  const block = text.split("\n\n").find((b) => b.startsWith(head));
  assert.ok(block !== undefined, `no location ${head} in:\n${text}`);
  return block.split("\n").slice(1);
}
