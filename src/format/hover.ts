/** Hover contents in any of their three shapes, as markdown. */
export function hoverMarkdown(contents: unknown): string {
  if (contents === null || contents === undefined) return "";
  if (typeof contents === "string") return contents;
  if (Array.isArray(contents)) return contents.map(hoverMarkdown).filter(Boolean).join("\n\n");
  if (typeof contents === "object") {
    const value = (contents as { value?: unknown }).value;
    const language = (contents as { language?: unknown }).language;
    if (typeof value !== "string") return "";
    // MarkedString {language, value} is a code block; MarkupContent {kind, value} is the text.
    return typeof language === "string" ? "```" + language + "\n" + value + "\n```" : value;
  }
  return "";
}

/** One signature as `signature` shows it. */
export interface SignatureView {
  label: string;
  documentation: string;
  parameters: string[];
  active: boolean;
  activeParameter: number | null;
}

/** Signatures for the model: the active one first, its current parameter named. */
export function signatureText(where: string, signatures: SignatureView[]): string {
  const ordered = [...signatures].sort((a, b) => Number(b.active) - Number(a.active));
  const parts = [`Signature at ${where}:`];
  for (const s of ordered) {
    const param = s.activeParameter !== null ? s.parameters[s.activeParameter] : undefined;
    parts.push(
      s.label + (param ? `\n  current parameter: ${param}` : "") +
        (s.documentation ? `\n\n${s.documentation}` : ""),
    );
  }
  return parts.join("\n\n");
}
