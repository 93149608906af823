import type { Session } from "../session.ts";

/** Diagnostics for edited files, for an agent's post-edit hook; exit 1 when errors are found. */
export async function runHook(session: Session, files: string[]): Promise<number> {
  const response = await session.handle({
    id: 1,
    action: "diagnostics",
    files,
    severity: "warning",
  });
  await session.close();
  if (!response.ok) {
    console.error(`${response.error.code}: ${response.error.message}`);
    return 2;
  }
  console.log(response.content[0].text);
  const results = (response.details.files ?? []) as { diagnostics: { severity: string }[] }[];
  return results.some((f) => f.diagnostics.some((d) => d.severity === "error")) ? 1 : 0;
}
