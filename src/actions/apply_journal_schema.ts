// The shape of an apply's journal (apply_journal.ts), checked when one is read back. A module of its
// own, imported when a journal is read: zod's modules then load with the first action that needs
// them, after the first question's server is spawned, not with every session's opening.
import * as z from "../zod.ts";

const stepSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("replace"),
    target: z.string(),
    temp: z.string(),
    backup: z.optional(z.string()),
  }),
  z.object({
    kind: z.literal("move"),
    from: z.string(),
    to: z.string(),
    backup: z.optional(z.string()),
    ino: z.nullable(z.number()),
  }),
  z.object({ kind: z.literal("delete"), target: z.string(), backup: z.string() }),
]);

/** One step of an apply, in the order it is carried out. */
export type Step = z.infer<typeof stepSchema>;

export const recordSchema = z.object({
  version: z.literal(1),
  root: z.string(),
  pid: z.number(),
  startedAt: z.string(),
  /** `preparing`: side files being written, no target touched; `committing`: targets replaced. */
  phase: z.enum(["preparing", "committing"]),
  steps: z.array(stepSchema),
  /** Folders the apply created (for a move or a new file), deepest last. */
  folders: z.array(z.string()),
});

/** What a journal holds. */
export type JournalRecord = z.infer<typeof recordSchema>;
