// What a post-edit hook's JSON payload says: the edited files, the agent session, the event, and
// (Claude Code) the edited file's text before the edit.
import { isAbsolute, resolve } from "../posix_path.ts";

/** What a hook payload says: the edited files, and who and when. */
export interface HookPayload {
  files: string[];
  /** The agent's session id (Claude Code's `session_id`). */
  session?: string;
  /** Claude Code's `hook_event_name`: `PostToolUse`, `Stop`, … */
  event?: string;
  /** Claude Code's `tool_name`: `Edit`, `Write`, `Read`, … */
  tool?: string;
  /** Claude Code's `stop_hook_active`: the agent is already continuing because of a stop hook. */
  stopHookActive?: boolean;
  /** The edited file's whole text before the edit (Claude Code's `tool_response.originalFile`). */
  original?: string;
  /** The replacement an Edit made (`tool_input.old_string` → `new_string`, `replace_all`). */
  edit?: { old: string; new: string; all: boolean };
}

/** The edited files a hook payload names, or what is wrong with the payload. */
export function parsePayload(text: string): string[] | string {
  const payload = readPayload(text);
  return typeof payload === "string" ? payload : payload.files;
}

/** What a hook payload says (files, session, event), or what is wrong with it. */
export function readPayload(text: string): HookPayload | string {
  if (text.trim() === "") {
    return "no hook payload on stdin; expected one such as " +
      '{"tool_input": {"file_path": "/abs/path.ts"}}, or file paths as arguments';
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return "stdin is not JSON; expected a hook payload such as " +
      '{"tool_input": {"file_path": "/abs/path.ts"}}';
  }
  if (!isObject(payload)) return "the hook payload on stdin is not a JSON object";
  const input = isObject(payload.tool_input) ? payload.tool_input : {};
  const output = isObject(payload.tool_response) ? payload.tool_response : {};
  const named = {
    "tool_input.file_path": input.file_path,
    "tool_input.filePath": input.filePath,
    "tool_input.path": input.path,
    "tool_response.filePath": output.filePath,
    file_path: payload.file_path,
  };
  const odd = Object.entries(named).find(([, p]) => p != null && typeof p !== "string");
  if (odd) return `the hook payload's ${odd[0]} is not a string (a path)`;
  const found = Object.values(named).filter((p): p is string => typeof p === "string" && p !== "");
  const cwd = typeof payload.cwd === "string" ? payload.cwd : undefined;
  const original = output.originalFile;
  const replaced = typeof input.old_string === "string" && typeof input.new_string === "string";
  return {
    files: [...new Set(found.map((p) => cwd && !isAbsolute(p) ? resolve(cwd, p) : p))],
    session: typeof payload.session_id === "string" && payload.session_id
      ? payload.session_id.slice(0, 200)
      : undefined,
    event: typeof payload.hook_event_name === "string" ? payload.hook_event_name : undefined,
    tool: typeof payload.tool_name === "string" ? payload.tool_name.slice(0, 100) : undefined,
    stopHookActive: payload.stop_hook_active === true,
    ...(typeof original === "string" ? { original } : {}),
    ...(replaced
      ? {
        edit: {
          old: input.old_string as string,
          new: input.new_string as string,
          all: input.replace_all === true,
        },
      }
      : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
