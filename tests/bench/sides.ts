// The two clients the benchmark compares, behind one interface: each action is prepared untimed
// (an on-disk edit for diagnostics), then run and timed; a wrong answer throws.
import { join } from "node:path";
import { toFileUrl } from "../../src/servers/uri.ts";
import { CLIENT_CAPABILITIES } from "../../src/lsp/capabilities.ts";
import { ADAPTERS } from "../../adapters/mod.ts";
import { DirectClient } from "./direct_client.ts";
import { type GateResponse, LspgateProcess } from "./lspgate_process.ts";
import type { Scenario, Spot } from "./scenarios.ts";

/** The actions compared one to one. */
export const ACTIONS = [
  "definition",
  "references",
  "hover",
  "symbols",
  "workspace_symbols",
  "diagnostics",
] as const;

/** One of ACTIONS. */
export type Action = typeof ACTIONS[number];

/** A position found by text: 0-based line, 0-based UTF-16 and 1-based code point columns. */
export interface Place {
  file: string;
  line: number;
  utf16: number;
  column: number;
}

/** What a side must answer for the answers to count as correct. */
export interface Expected {
  definition: { file: string; line: number };
  /** At least this many references (the direct client's count once the project is loaded). */
  references: number;
}

/** Finds a spot in a workspace copy. */
export async function locate(root: string, spot: Spot): Promise<Place> {
  const lines = (await Deno.readTextFile(join(root, spot.file))).split("\n");
  const line = lines.findIndex((text) => text.includes(spot.line));
  if (line < 0) throw new Error(`${spot.file} has no line with ${JSON.stringify(spot.line)}`);
  const text = lines[line];
  const word = new RegExp(`\\b${spot.symbol}\\b`).exec(text.slice(text.indexOf(spot.line)));
  if (!word) throw new Error(`${spot.file}:${line + 1} has no ${spot.symbol}`);
  const utf16 = text.indexOf(spot.line) + word.index;
  return { file: spot.file, line, utf16, column: [...text.slice(0, utf16)].length + 1 };
}

/** A client under test. */
export interface Side {
  label: string;
  /** This side's own copy of the workspace. */
  root: string;
  /** The process whose memory is lspgate's (none for the direct client). */
  pid?: number;
  /** Untimed set-up of sample `n` (writes the edit for diagnostics). */
  prepare(action: Action, n: number): Promise<void>;
  /** The timed part: asks, and checks the answer. */
  run(action: Action, n: number): Promise<void>;
  /** Is the definition answer correct yet (for cold start)? */
  definitionCorrect(): Promise<boolean>;
  /** How many references it finds now. */
  referenceCount(): Promise<number>;
  /** Diagnostics of many files, all at once (true) or one after another. */
  diagnoseMany(files: string[], pipelined: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Writes the scenario's error line at the end of `file`, in place of the last one written. */
export async function writeEdit(root: string, file: string, line: string): Promise<void> {
  const path = join(root, file);
  const lines = (await Deno.readTextFile(path)).replace(/\n$/, "").split("\n");
  if (/lspgate_bench_|lspgateBench/.test(lines.at(-1) ?? "")) lines.pop();
  await Deno.writeTextFile(path, [...lines, line, ""].join("\n"));
}

interface Places {
  definition: Place;
  references: Place;
  hover: Place;
}

async function places(root: string, scenario: Scenario): Promise<Places> {
  return {
    definition: await locate(root, scenario.definition),
    references: await locate(root, scenario.references),
    hover: await locate(root, scenario.hover),
  };
}

/** The direct client's side: documents opened once, as an editor keeps them. */
export class DirectSide implements Side {
  readonly label = "direct";
  #places!: Places;

  private constructor(
    readonly client: DirectClient,
    readonly root: string,
    readonly scenario: Scenario,
    readonly expected: Expected,
  ) {}

  /** Starts the server the way lspgate's adapter would (same binary, settings, options). */
  static async start(root: string, scenario: Scenario, expected: Expected): Promise<DirectSide> {
    const client = await DirectClient.start(await directOptions(root, scenario));
    const side = new DirectSide(client, root, scenario, expected);
    side.#places = await places(root, scenario);
    return side;
  }

  get pid(): undefined {
    return undefined;
  }

  /** The server's own pid (its memory is not lspgate's). */
  get serverPid(): number {
    return this.client.pid;
  }

  async #open(file: string): Promise<string> {
    const uri = toFileUrl(join(this.root, file));
    if (!this.client.isOpen(uri)) {
      this.client.open(
        uri,
        this.scenario.languageId,
        await Deno.readTextFile(join(this.root, file)),
      );
    }
    return uri;
  }

  #at(place: Place) {
    return { line: place.line, character: place.utf16 };
  }

  async prepare(action: Action, n: number): Promise<void> {
    const s = this.scenario;
    if (action === "definition") await this.#open(s.definition.file);
    if (action === "references") await this.#open(s.references.file);
    if (action === "hover") await this.#open(s.hover.file);
    if (action === "symbols") await this.#open(s.outline);
    if (action === "diagnostics") {
      await this.#open(s.edit.file);
      await writeEdit(this.root, s.edit.file, s.edit.errorLine(n));
    }
  }

  async run(action: Action): Promise<void> {
    const s = this.scenario;
    const c = this.client;
    switch (action) {
      case "definition": {
        if (!(await this.definitionCorrect())) throw new Error("wrong definition");
        return;
      }
      case "references": {
        const count = await this.referenceCount();
        if (count < this.expected.references) throw new Error(`only ${count} references`);
        return;
      }
      case "hover": {
        const uri = await this.#open(s.hover.file);
        const hover = await c.request<{ contents?: unknown }>("textDocument/hover", {
          textDocument: { uri },
          position: this.#at(this.#places.hover),
        });
        if (!hover?.contents) throw new Error("no hover");
        return;
      }
      case "symbols": {
        const uri = await this.#open(s.outline);
        const symbols = await c.request<unknown[]>("textDocument/documentSymbol", {
          textDocument: { uri },
        });
        if (!symbols?.length) throw new Error("no symbols");
        return;
      }
      case "workspace_symbols": {
        const found = await c.request<unknown[]>("workspace/symbol", { query: s.workspaceQuery });
        if (!found?.length) throw new Error("no workspace symbols");
        return;
      }
      case "diagnostics": {
        const count = await this.#diagnose(s.edit.file);
        if (count < 1) throw new Error("the edit's error is missing");
        return;
      }
    }
  }

  /** Reads the file from disk, sends it, and waits for its diagnostics. */
  async #diagnose(file: string): Promise<number> {
    const uri = toFileUrl(join(this.root, file));
    const text = await Deno.readTextFile(join(this.root, file));
    const mark = this.client.pushMark;
    if (this.client.isOpen(uri)) {
      // Unchanged: the last push holds (servers such as clangd publish nothing for the same text).
      const last = this.client.lastPush(uri);
      if (this.client.textOf(uri) === text && last !== undefined) return last;
      this.client.change(uri, text);
    } else {
      this.client.open(uri, this.scenario.languageId, text);
    }
    return await this.client.diagnostics(uri, mark);
  }

  async definitionCorrect(): Promise<boolean> {
    const uri = await this.#open(this.scenario.definition.file);
    const raw = await this.client.request<unknown>("textDocument/definition", {
      textDocument: { uri },
      position: this.#at(this.#places.definition),
    });
    const want = toFileUrl(join(this.root, this.expected.definition.file));
    return locationsOf(raw).some((l) => l.uri === want && l.line === this.expected.definition.line);
  }

  async referenceCount(): Promise<number> {
    const uri = await this.#open(this.scenario.references.file);
    const raw = await this.client.request<unknown[]>("textDocument/references", {
      textDocument: { uri },
      position: this.#at(this.#places.references),
      context: { includeDeclaration: true },
    });
    return raw?.length ?? 0;
  }

  async diagnoseMany(files: string[], pipelined: boolean): Promise<void> {
    if (pipelined) {
      await Promise.all(files.map((file) => this.#diagnose(file)));
    } else {
      for (const file of files) await this.#diagnose(file);
    }
  }

  /** True while the server reports work in progress. */
  get busy(): boolean {
    return this.client.busy;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** lspgate's side: its JSON-lines front end in its own process. */
export class GateSide implements Side {
  readonly label: string;
  #places!: Places;

  private constructor(
    readonly gate: LspgateProcess,
    readonly root: string,
    readonly scenario: Scenario,
    readonly expected: Expected,
    label?: string,
  ) {
    this.label = label ?? (gate.sandbox === "none" ? "lspgate" : "lspgate+sandbox");
  }

  /**
   * Spawns lspgate on `root` (its first request starts the server); `compare` runs another
   * checkout under its own label instead.
   */
  static async start(
    root: string,
    scenario: Scenario,
    expected: Expected,
    sandbox: "none" | "auto",
    compare?: { home?: string; label: string },
  ): Promise<GateSide> {
    const gate = new LspgateProcess(root, sandbox, compare?.home);
    const side = new GateSide(gate, root, scenario, expected, compare?.label);
    side.#places = await places(root, scenario);
    return side;
  }

  get pid(): number {
    return this.gate.pid;
  }

  async ask(request: Record<string, unknown>): Promise<GateResponse> {
    const response = await this.gate.request(request);
    if (!response.ok) {
      throw new Error(
        `${this.label} ${request.action}: ${response.error?.code} ${response.error?.message}\n` +
          this.gate.stderrTail(),
      );
    }
    return response;
  }

  #at(place: Place) {
    return { file: place.file, line: place.line + 1, column: place.column };
  }

  async prepare(action: Action, n: number): Promise<void> {
    if (action === "diagnostics") {
      await writeEdit(this.root, this.scenario.edit.file, this.scenario.edit.errorLine(n));
    }
  }

  async run(action: Action): Promise<void> {
    const s = this.scenario;
    switch (action) {
      case "definition":
        if (!(await this.definitionCorrect())) throw new Error(`${this.label}: wrong definition`);
        return;
      case "references": {
        const count = await this.referenceCount();
        if (count < this.expected.references) {
          throw new Error(`${this.label}: only ${count} references`);
        }
        return;
      }
      case "hover": {
        const answer = await this.ask({ action: "hover", ...this.#at(this.#places.hover) });
        if (!answer.details?.text) throw new Error(`${this.label}: no hover`);
        return;
      }
      case "symbols": {
        const answer = await this.ask({ action: "symbols", file: s.outline });
        if (!(answer.details?.symbols as unknown[])?.length) {
          throw new Error(`${this.label}: no symbols`);
        }
        return;
      }
      case "workspace_symbols": {
        const answer = await this.ask({ action: "symbols", file: "*", query: s.workspaceQuery });
        if (!(answer.details?.symbols as unknown[])?.length) {
          throw new Error(`${this.label}: no workspace symbols`);
        }
        return;
      }
      case "diagnostics": {
        const answer = await this.ask({ action: "diagnostics", file: s.edit.file });
        const file = (answer.details?.files as { status: string; diagnostics: unknown[] }[])?.[0];
        if (file?.status !== "ok" || file.diagnostics.length < 1) {
          throw new Error(`${this.label}: the edit's error is missing (${JSON.stringify(file)})`);
        }
        return;
      }
    }
  }

  async definitionCorrect(): Promise<boolean> {
    const answer = await this.ask({ action: "definition", ...this.#at(this.#places.definition) });
    const locations = (answer.details?.locations ?? []) as { file: string; line: number }[];
    return locations.some((l) =>
      l.file === this.expected.definition.file && l.line === this.expected.definition.line + 1
    );
  }

  async referenceCount(): Promise<number> {
    const answer = await this.ask({ action: "references", ...this.#at(this.#places.references) });
    return Number(answer.details?.total ?? 0);
  }

  async diagnoseMany(files: string[], pipelined: boolean): Promise<void> {
    const check = (answer: GateResponse) => {
      for (const f of (answer.details?.files ?? []) as { file: string; status: string }[]) {
        if (f.status !== "ok") throw new Error(`${this.label}: ${f.file} ${f.status}`);
      }
    };
    if (pipelined) {
      check(await this.ask({ action: "diagnostics", files }));
    } else {
      for (const file of files) check(await this.ask({ action: "diagnostics", file }));
    }
  }

  close(): Promise<void> {
    return this.gate.close();
  }
}

/** The server command, settings and options lspgate's adapter would use, for the direct client. */
async function directOptions(root: string, scenario: Scenario) {
  const adapter = ADAPTERS.find((a) => a.id === scenario.server);
  if (!adapter) throw new Error(`no adapter ${scenario.server}`);
  const real = await Deno.realPath(root);
  const command = await adapter.resolve({ root: real, workspace: real, trusted: false });
  return {
    command: command.command,
    cwd: real,
    env: { ...adapter.env, ...command.env },
    rootUri: toFileUrl(real),
    // lspgate's own capabilities, but positions in UTF-16 only (the direct client converts none).
    capabilities: {
      ...CLIENT_CAPABILITIES,
      ...adapter.extraCapabilities,
      general: { positionEncodings: ["utf-16"] },
      ...(adapter.extraCapabilities?.offsetEncoding ? { offsetEncoding: ["utf-16"] } : {}),
    },
    initializationOptions: layered(adapter.initializationOptions, command.initializationOptions),
    settings: layered(adapter.settings, command.settings) as Record<string, unknown> | undefined,
  };
}

function layered(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = layered(a[key], value);
    return out;
  }
  return b;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** URI and 0-based start line of each location in a definition answer. */
function locationsOf(raw: unknown): { uri: string; line: number }[] {
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return list.map((item) => {
    if (item.targetUri) {
      const range = item.targetSelectionRange ?? item.targetRange;
      return { uri: item.targetUri, line: range.start.line };
    }
    return { uri: item.uri, line: item.range?.start?.line };
  });
}
