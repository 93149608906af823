// lspgate's `lsp` tool for pi (which has no MCP client): a pi extension, copied into
// ~/.pi/agent/extensions/. One `lspgate` process per session, started on the first call in the
// session's folder, asked over JSON lines (one request a line, answers matched by id); it needs
// `lspgate` on PATH (see lspgate's README, "Install").
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Type } from "typebox";

type Answer = {
  id: number;
  ok: boolean;
  content?: { type: "text"; text: string }[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
};

/** One `lspgate` JSON-lines process for a folder. */
class Lspgate {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #next = 1;
  #gone: string | undefined;

  constructor(root: string, command = "lspgate") {
    this.#child = spawn(command, ["--root", root], { stdio: ["pipe", "pipe", "ignore"] });
    createInterface({ input: this.#child.stdout! }).on("line", (line) => {
      let answer: Answer;
      try {
        answer = JSON.parse(line);
      } catch {
        return;
      }
      this.#pending.get(answer.id)?.(answer);
      this.#pending.delete(answer.id);
    });
    const gone = (why: string) => {
      this.#gone = why;
      for (const [id, done] of this.#pending) {
        done({ id, ok: false, error: { code: "SERVER_EXITED", message: why } });
      }
      this.#pending.clear();
    };
    this.#child.on("error", (error) => gone(`lspgate could not start: ${error.message}`));
    this.#child.on("exit", (code) => gone(`lspgate exited (code ${code})`));
  }

  /** Whether the process is gone (a new one is started for the next call). */
  get gone(): boolean {
    return this.#gone !== undefined;
  }

  /** Asks one request; a cancel is sent when `signal` aborts. */
  ask(request: Record<string, unknown>, signal?: AbortSignal): Promise<Answer> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      signal?.addEventListener(
        "abort",
        () => this.#write({ id: this.#next++, action: "cancel", target: id }),
        {
          once: true,
        },
      );
      this.#write({ ...request, id });
    });
  }

  #write(line: Record<string, unknown>): void {
    this.#child.stdin?.write(JSON.stringify(line) + "\n");
  }

  /** Ends the process: stdin closed, lspgate shuts its servers down and exits. */
  close(): void {
    this.#child.stdin?.end();
  }
}

/** The extension: registers `lsp`, and closes lspgate when the session ends. */
export default function lspgate(pi: ExtensionAPI): void {
  let server: Lspgate | undefined;
  pi.registerTool({
    name: "lsp",
    label: "lsp",
    description: "Code intelligence from real language servers, through lspgate: definition, " +
      "declaration, type_definition, implementation, references, hover, signature, symbols " +
      '(file, or file "*" with query), diagnostics, call_hierarchy, incoming_calls, ' +
      "outgoing_calls, supertypes, subtypes, rename / rename_file / format / code_actions " +
      "(previews; apply: true with the preview's edit_hash writes). Lines and columns are " +
      "1-based; give column, or symbol (a name on that line), or query (a symbol name).",
    promptSnippet: "lsp: definitions, references, hover, diagnostics and safe renames from " +
      "language servers",
    parameters: Type.Object({
      action: Type.String({ description: "definition, references, hover, diagnostics, …" }),
      file: Type.Optional(Type.String({ description: "Path relative to the project" })),
      line: Type.Optional(Type.Integer({ minimum: 1 })),
      column: Type.Optional(Type.Integer({ minimum: 1 })),
      symbol: Type.Optional(Type.String({ description: "A name on that line" })),
      query: Type.Optional(Type.String({ description: "A symbol name, or a search" })),
      new_name: Type.Optional(Type.String()),
      apply: Type.Optional(Type.Boolean()),
      edit_hash: Type.Optional(Type.String()),
      include_declaration: Type.Optional(Type.Boolean()),
      severity: Type.Optional(Type.String()),
      files: Type.Optional(Type.Array(Type.String())),
    }),
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      if (!server || server.gone) server = new Lspgate(ctx.cwd);
      const answer = await server.ask(params as Record<string, unknown>, signal);
      // pi marks a tool result failed when execute throws.
      if (!answer.ok) throw new Error(`${answer.error?.code}: ${answer.error?.message}`);
      return { content: answer.content ?? [], details: answer.details ?? {} };
    },
  });
  pi.on("session_shutdown", () => {
    server?.close();
    server = undefined;
  });
}
