/**
 * The memory budget: which idle servers to stop when the servers together hold more memory than
 * the user allows.
 *
 * Rationale: agents open a worktree per task and a sub-agent per question, and each root's servers
 * stay warm; without a ceiling they add up to tens of GiB. Stopping the least recently used idle
 * server first keeps the warm ones warm, and a stopped server starts again on its next question.
 * The server used last is never stopped for the budget: when it alone is over, stopping it would
 * only make the next question start it again (thrashing), so that is said instead.
 *
 * @module
 */

/** A running server as the budget sees it. */
export interface BudgetServer {
  key: string;
  /** Its process tree's resident memory; undefined where it cannot be measured. */
  rssMiB?: number;
  /** A request is using it, or it is starting. */
  busy: boolean;
  /** Date.now() of its last use. */
  lastUsed: number;
}

/** What the budget decided: the servers to stop, and what it could not bring under. */
export interface BudgetDecision {
  /** Keys of idle servers to stop, least recently used first. */
  stop: string[];
  /** The servers' total before stopping any, in MiB. */
  totalMiB: number;
  /** Said when the servers kept still hold more than the budget, and why they are kept. */
  over?: string;
}

/** Picks idle servers to stop, least recently used first, until the rest fit in `budgetMiB`. */
export function decideBudget(servers: readonly BudgetServer[], budgetMiB: number): BudgetDecision {
  const totalMiB = servers.reduce((sum, s) => sum + (s.rssMiB ?? 0), 0);
  if (totalMiB <= budgetMiB) return { stop: [], totalMiB };
  const latest = servers.reduce<BudgetServer | undefined>(
    (last, s) => (last === undefined || s.lastUsed > last.lastUsed ? s : last),
    undefined,
  );
  const candidates = servers
    .filter((s) => !s.busy && s !== latest && (s.rssMiB ?? 0) > 0)
    .sort((a, b) => a.lastUsed - b.lastUsed);
  const stop: string[] = [];
  let left = totalMiB;
  for (const server of candidates) {
    if (left <= budgetMiB) break;
    stop.push(server.key);
    left -= server.rssMiB ?? 0;
  }
  if (left <= budgetMiB) return { stop, totalMiB };
  const kept = servers.filter((s) => !stop.includes(s.key));
  const alone = kept.find((s) => (s.rssMiB ?? 0) > budgetMiB);
  const over = alone
    ? `${alone.key} alone uses ${
      Math.round(alone.rssMiB ?? 0)
    } MiB, more than the memory budget of ` +
      `${budgetMiB} MiB; it is kept (${alone.busy ? "busy" : "used last"}) rather than ` +
      "stopped and started again on every question"
    : `the servers kept (busy or used last) hold ${
      Math.round(left)
    } MiB, more than the memory budget of ` +
      `${budgetMiB} MiB`;
  return { stop, totalMiB, over };
}
