// The commands a reader copies from the documentation: every fenced block of README.md and
// permissions.md, its shell lines (continuations joined, comments dropped), and the commands
// held by configuration snippets (JSON `"command"` with its `"args"`, TOML `command` / `args`).
import { parse as parseJsonc, type ParseError } from "jsonc-parser";

/** One fenced block of a Markdown file. */
export interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
}

/** One command the documentation gives, as written. */
export interface DocCommand {
  block: Block;
  /** 1-based line where it starts. */
  line: number;
  /** The command: a shell line, or a config snippet's command and arguments joined by spaces. */
  text: string;
  /** Where it came from: a shell line, or a command inside a config snippet. */
  kind: "shell" | "config";
}

/** Every fenced block (``` or ````) of `markdown`. */
export function fencedBlocks(markdown: string, file: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,})(\S*)\s*$/);
    if (!open) continue;
    const close = new RegExp(`^${open[1]}\\s*$`);
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j])) j++;
    blocks.push({ file, line: i + 1, lang: open[2], text: lines.slice(i + 1, j).join("\n") });
    i = j;
  }
  return blocks;
}

/** The shell commands of a `sh` block: one per line, continuations joined, comments dropped. */
export function shellCommands(block: Block): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = block.text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i];
    while (text.endsWith("\\") && i + 1 < lines.length) text = text.slice(0, -1) + lines[++i];
    // A comment at the start of a line, or after the command (`cmd   # why`).
    text = text.replace(/(^|\s)#\s.*$/, "").replace(/\s+/g, " ").trim();
    if (text === "" || text.startsWith("#")) continue;
    commands.push({ block, line: block.line + 1 + start, text, kind: "shell" });
  }
  return commands;
}

/** The commands a JSON(C) or TOML block holds: `"command"` (a string or an argv) and `"args"`. */
export function configCommands(block: Block): DocCommand[] {
  const at = (text: string): DocCommand => ({ block, line: block.line, text, kind: "config" });
  if (block.lang === "toml") {
    const command = block.text.match(/^command\s*=\s*"([^"]*)"/m)?.[1];
    if (command === undefined) return [];
    const args = block.text.match(/^args\s*=\s*(\[.*\])/m)?.[1];
    return [at([command, ...(args ? JSON.parse(args) as string[] : [])].join(" "))];
  }
  const errors: ParseError[] = [];
  const json = parseJsonc(block.text, errors, { allowTrailingComma: true });
  if (errors.length) {
    // Protocol examples (several objects, elisions) parse as no single value: they must not hide
    // a command.
    if (/"command"\s*:/.test(block.text)) {
      throw new Error(
        `${block.file}:${block.line}: a ${block.lang} block with a "command" that does not parse`,
      );
    }
    return [];
  }
  const found: DocCommand[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== "object" || value === null) return;
    const entry = value as Record<string, unknown>;
    if (typeof entry.command === "string") {
      const args = Array.isArray(entry.args) ? entry.args as string[] : [];
      found.push(at([entry.command, ...args].join(" ")));
    } else if (Array.isArray(entry.command)) {
      found.push(at((entry.command as string[]).join(" ")));
    }
    Object.values(entry).forEach(walk);
  };
  walk(json);
  return found;
}

/** Every command of a Markdown file's fenced blocks. */
export function documentedCommands(markdown: string, file: string): DocCommand[] {
  return fencedBlocks(markdown, file).flatMap((block) =>
    ["sh", "bash", "shell", "console"].includes(block.lang)
      ? shellCommands(block)
      : ["json", "jsonc", "toml"].includes(block.lang)
      ? configCommands(block)
      : []
  );
}
