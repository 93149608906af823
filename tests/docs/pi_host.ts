// A stand-in for pi's extension host, as pi's extension docs describe it: loads the extension
// file named by the first argument, gives it an `ExtensionAPI` that records `registerTool` and
// `on`, calls the registered tool's `execute` with the JSON parameters read on stdin (and a
// context whose `cwd` is this process's), prints the result, then fires `session_shutdown`.
type Tool = {
  name: string;
  parameters: unknown;
  execute(
    id: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: undefined,
    ctx: { cwd: string },
  ): Promise<{ content: unknown[]; details: unknown }>;
};
const tools: Tool[] = [];
const handlers = new Map<string, (() => void)[]>();
const pi = {
  registerTool: (tool: Tool) => tools.push(tool),
  on: (event: string, handler: () => void) =>
    handlers.set(event, [...handlers.get(event) ?? [], handler]),
};
const extension = await import(new URL(Deno.args[0], "file:///").href);
await extension.default(pi);
const [tool] = tools;
const params = JSON.parse(await new Response(Deno.stdin.readable).text());
const result = await tool.execute("call-1", params, undefined, undefined, { cwd: Deno.cwd() });
console.log(JSON.stringify({ tool: tool.name, ...result }));
for (const handler of handlers.get("session_shutdown") ?? []) handler();
