/** The most characters of text one answer carries. */
export const MAX_TEXT_CHARS = 60_000;
/** The most items one list in an answer carries. */
export const MAX_ITEMS = 200;
/** How many locations get source context; the rest are listed by position only. */
export const MAX_WITH_CONTEXT = 50;

/** Cuts text to MAX_TEXT_CHARS at a line break and says how much was cut. */
export function boundText(text: string, limit = MAX_TEXT_CHARS): { text: string; cut: boolean } {
  if (text.length <= limit) return { text, cut: false };
  const slice = text.slice(0, limit);
  const end = slice.lastIndexOf("\n") > limit * 0.8 ? slice.lastIndexOf("\n") : limit;
  const kept = text.slice(0, end);
  const lines = text.slice(end).split("\n").length;
  return {
    text:
      `${kept}\n… output cut at ${end} of ${text.length} characters (about ${lines} more lines).`,
    cut: true,
  };
}

/** Keeps the first `limit` items and says how many there were. */
export function boundList<T>(items: T[], limit = MAX_ITEMS): {
  items: T[];
  total: number;
  truncated: boolean;
} {
  return { items: items.slice(0, limit), total: items.length, truncated: items.length > limit };
}

/** "1 reference" / "3 references". */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
