import type { Session } from "../session.ts";

/** `lspgate call ACTION key=value ...`: one request, the answer's text on stdout. */
export async function runCall(session: Session, args: string[]): Promise<number> {
  const [action, ...pairs] = args;
  const request: Record<string, unknown> = { id: 1, action };
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) {
      console.error(`lspgate call: expected key=value, got ${pair}`);
      return 2;
    }
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    request[key] = /^-?\d+$/.test(raw)
      ? Number(raw)
      : raw === "true"
      ? true
      : raw === "false"
      ? false
      : raw;
  }
  const response = await session.handle(request);
  await session.close();
  if (response.ok) {
    console.log(response.content[0].text);
    return 0;
  }
  console.error(`${response.error.code}: ${response.error.message}`);
  return 1;
}
