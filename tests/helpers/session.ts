import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, type LspGateConfig, type Response, Session } from "../../mod.ts";
import type { FixtureName } from "./workspace.ts";
import { TempWorkspace } from "./workspace.ts";

/** The success half of a response. */
export type Success = Extract<Response, { ok: true }>;

/** A location as `details.locations[]` gives it. */
export interface Location {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  approximate?: boolean;
}

/** Options for a test session: role and mutations, as the flags would set them. */
export interface OpenOptions {
  role?: "main" | "subagent";
  allowMutations?: boolean;
  /** The user config's `servers` (e.g. one preferred over another). */
  servers?: LspGateConfig["servers"];
}

/** Opens an in-process session over `root` with every shipped adapter and the default config. */
export function openSession(root: string, options: OpenOptions = {}): Promise<Session> {
  return Session.open({
    root,
    role: options.role ?? "main",
    allowMutations: options.allowMutations ?? false,
    adapters: ADAPTERS,
    config: { ...defaultConfig(), servers: options.servers ?? {} },
  });
}

/** A fixture copied to a temp dir and a session over it; `close()` stops the servers and cleans up. */
export interface Harness {
  ws: TempWorkspace;
  session: Session;
  /** Sends one request (an id is added) and returns the response. */
  ask(request: Record<string, unknown>): Promise<Response>;
  /** Sends one request and asserts it succeeded. */
  ok(request: Record<string, unknown>): Promise<Success>;
  /** Sends one request and asserts it failed with `code`; returns the message. */
  fails(request: Record<string, unknown>, code: string): Promise<string>;
  close(): Promise<void>;
}

let nextId = 1;

/** Copies a fixture and opens a session over it. */
export async function harness(name: FixtureName, options: OpenOptions = {}): Promise<Harness> {
  const ws = await TempWorkspace.copy(name);
  let session: Session;
  try {
    session = await openSession(ws.root, options);
  } catch (error) {
    await ws.remove();
    throw error;
  }
  const ask = (request: Record<string, unknown>) => session.handle({ id: nextId++, ...request });
  return {
    ws,
    session,
    ask,
    async ok(request) {
      return expectOk(await ask(request), request);
    },
    async fails(request, code) {
      return expectError(await ask(request), code, request);
    },
    async close() {
      try {
        await session.close();
      } finally {
        await ws.remove();
      }
    },
  };
}

/** Asserts a response succeeded and returns it. */
export function expectOk(response: Response, request?: unknown): Success {
  if (!response.ok) {
    assert.fail(
      `expected success for ${JSON.stringify(request)}, got ${response.error.code}: ` +
        response.error.message,
    );
  }
  return response;
}

/** Asserts a response failed with `code` and returns its message. */
export function expectError(response: Response, code: string, request?: unknown): string {
  if (response.ok) {
    assert.fail(
      `expected ${code} for ${JSON.stringify(request)}, got success: ${response.content[0].text}`,
    );
  }
  assert.equal(response.error.code, code, response.error.message);
  return response.error.message;
}

/** The text an agent reads. */
export function textOf(response: Success): string {
  return response.content[0].text;
}

/** `details.locations`, without the `approximate` flag of locations outside the workspace. */
export function locationsOf(response: Success): Location[] {
  const locations = response.details.locations as Location[] | undefined;
  assert.ok(
    Array.isArray(locations),
    `no details.locations in ${JSON.stringify(response.details)}`,
  );
  return locations;
}

/** Locations in a stable order, for comparing sets. */
export function sorted<T extends { file: string; line: number; column: number }>(list: T[]): T[] {
  return [...list].sort((a, b) =>
    a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column
  );
}

/** A successful answer with what tests read of it: its text and details. */
export interface Answered {
  answer: Success;
  text: string;
  details: Record<string, unknown>;
}

/** Asserts a response succeeded: the answer, its text and its details. */
export function answered(response: Response): Answered {
  const answer = expectOk(response);
  return { answer, text: textOf(answer), details: answer.details as Record<string, unknown> };
}

/** Asks `references` at `where` and asserts its locations are `expected`, in any order. */
export async function referencesAt(
  session: Session,
  id: number,
  where: { file: string; line: number; symbol: string },
  expected: { file: string; line: number; column: number }[],
): Promise<Answered> {
  const refs = answered(await session.handle({ id, action: "references", ...where }));
  assert.deepEqual(sorted(locationsOf(refs.answer)), sorted(expected), refs.text);
  return refs;
}

/**
 * A rename apply on a partial answer: refused (ACTION_NOT_ALLOWED, naming `reason` and
 * allow_partial) with every file of `files` unchanged under `root`, then applied with
 * `allow_partial: true`; its answer.
 */
export async function partialRenameApplied(
  session: Session,
  ids: [number, number],
  rename: Record<string, unknown>,
  reason: string,
  root: string,
  files: Record<string, string>,
): Promise<Answered> {
  refusedAsPartial(
    await session.handle({ id: ids[0], action: "rename", ...rename, apply: true }),
    reason,
  );
  for (const [file, text] of Object.entries(files)) {
    assert.equal(await Deno.readTextFile(`${root}/${file}`), text, file);
  }
  return answered(
    await session.handle({
      id: ids[1],
      action: "rename",
      ...rename,
      apply: true,
      allow_partial: true,
    }),
  );
}

/** Asserts an apply was refused for a partial answer: ACTION_NOT_ALLOWED naming `reason`. */
export function refusedAsPartial(response: Response, reason: string): void {
  assert.equal(response.ok, false, JSON.stringify(response));
  if (!response.ok) {
    assert.equal(response.error.code, "ACTION_NOT_ALLOWED");
    assert.match(response.error.message, /allow_partial: true/);
    assert.ok(response.error.message.includes(reason), response.error.message);
  }
}
