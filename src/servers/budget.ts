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

import { type ProcessTable, readProcessesSoon } from "./memory.ts";
import { boundDelay } from "../lsp/client_util.ts";

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
  /** The servers `over` is about (their keys): the one alone over the budget, or those kept. */
  overBy?: string[];
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
  if (!alone) {
    const over = `the servers kept (busy or used last) hold ${
      Math.round(left)
    } MiB, more than the memory budget of ${budgetMiB} MiB`;
    return { stop, totalMiB, over, overBy: kept.map((s) => s.key) };
  }
  const over =
    `${alone.key} alone uses ${
      Math.round(alone.rssMiB ?? 0)
    } MiB, more than the memory budget of ` +
    `${budgetMiB} MiB; it is kept (${alone.busy ? "busy" : "used last"}) rather than ` +
    "stopped and started again on every question";
  return { stop, totalMiB, over, overBy: [alone.key] };
}

/**
 * What one member of a pool is told of the budget's overrun: its own server by name, and only
 * that another workspace's is over, never which, how large or how used (a daemon's clients learn
 * nothing of the other roots it serves).
 */
function overAsSeenBy(
  decision: BudgetDecision,
  owners: ReadonlyMap<string, { member: BudgetMember; key: string }>,
  member: BudgetMember,
  budgetMiB: number,
): string | undefined {
  if (!decision.over) return undefined;
  const by = (decision.overBy ?? []).map((id) => ({ id, ...owners.get(id)! }));
  if (by.every((server) => server.member === member)) {
    return by.reduce((text, server) => text.replaceAll(server.id, server.key), decision.over);
  }
  return by.length === 1
    ? `a server of another workspace this lspgate serves alone uses more than the memory ` +
      `budget of ${budgetMiB} MiB; it is kept`
    : `the servers kept (busy or used last), some of other workspaces this lspgate serves, hold ` +
      `more than the memory budget of ${budgetMiB} MiB`;
}

/** A server manager as the pool sees it: its running servers, and how to stop one. */
export interface BudgetMember {
  /** The running servers, measured from `processes` (see memory.ts). */
  servers(processes: ProcessTable | undefined): BudgetServer[];
  /** Stops one server for the budget; it starts again on its next question. */
  stop(key: string, reason: string): Promise<void>;
}

/** How often the budget is checked while nothing starts or ends (servers grow as they index). */
const CHECK_EVERY_MS = 10_000;
/** At most one check this often after requests end (each reads /proc). */
const THROTTLE_MS = 1_000;
/** The longest `status` waits for a check in flight. */
const SETTLE_MS = 2_000;
/** How soon a server's start is checked where no request's end checks it first (a warm-up). */
const AFTER_START_MS = 1_000;

/**
 * One memory budget over every server manager that joins it: a session's, or all of a daemon's
 * roots, so one ceiling holds for everything one lspgate process keeps warm.
 */
export class BudgetPool {
  readonly #members = new Set<BudgetMember>();
  #timer?: ReturnType<typeof setInterval>;
  #checkedAt = 0;
  #checking?: Promise<void>;
  #soon?: ReturnType<typeof setTimeout>;
  /** A server started since the last check (see started()). */
  #due = false;
  #afterStart?: ReturnType<typeof setTimeout>;
  /** The last check's overrun, with the owners of the ids it names. */
  #over?: {
    decision: BudgetDecision;
    owners: ReadonlyMap<string, { member: BudgetMember; key: string }>;
  };

  #budget: number | undefined | (() => number | undefined);

  /**
   * `budget` undefined: servers are measured, never stopped for memory. A function is asked once,
   * when the budget is first needed: the machine's memory may take a process to read (`cat`), not
   * worth a session's start, which comes before any server.
   */
  constructor(budget: number | undefined | (() => number | undefined)) {
    this.#budget = budget;
  }

  /** The budget in MiB, or undefined for none. */
  get budgetMiB(): number | undefined {
    if (typeof this.#budget === "function") this.#budget = this.#budget();
    return this.#budget;
  }

  /** Adds a manager; returns how it leaves. */
  join(member: BudgetMember): () => Promise<void> {
    this.#members.add(member);
    return async () => {
      this.#members.delete(member);
      await this.#checking;
      if (this.#members.size === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
        clearTimeout(this.#soon);
        this.#soon = undefined;
        clearTimeout(this.#afterStart);
        this.#afterStart = undefined;
      }
    };
  }

  /** Why the servers are over the budget and kept so, as of the last check, as `member` sees it. */
  overFor(member: BudgetMember): string | undefined {
    if (!this.#over || this.budgetMiB === undefined) return undefined;
    return overAsSeenBy(this.#over.decision, this.#over.owners, member, this.budgetMiB);
  }

  /**
   * After a request: a check at most once a second (at once after a server's start), on a later
   * turn, so that reading /proc (~3 ms with a few servers; the machine's memory too, the first
   * time) never holds back the answer being written.
   */
  checkSoon(): void {
    if (this.#budget === undefined || this.#soon !== undefined) return;
    if (!this.#due && Date.now() - this.#checkedAt < THROTTLE_MS) return;
    this.#soon = setTimeout(() => {
      this.#soon = undefined;
      this.check(this.#due);
    }, 0);
    Deno.unrefTimer(this.#soon);
  }

  /**
   * A server started: checked once the request that started it has answered (its lease's release
   * calls checkSoon), or within AFTER_START_MS where none did (a warm-up). Not at once: reading
   * /proc then (a `cat`, and the machine's memory the first time) held the server's first
   * question back by ~7 ms, between its `initialized` and its file's didOpen.
   */
  started(): void {
    this.#due = true;
    if (this.#afterStart !== undefined || this.#members.size === 0) return;
    this.#afterStart = setTimeout(() => {
      this.#afterStart = undefined;
      if (this.#due) this.check(true);
    }, AFTER_START_MS);
    Deno.unrefTimer(this.#afterStart);
  }

  /**
   * Runs a check a start made due, and waits for any in flight (at most SETTLE_MS: a /proc read
   * stuck on a process must not hold `status`): `status` says what is now.
   */
  async settled(): Promise<void> {
    if (this.#due) this.check(true);
    if (this.#checking) await Promise.race([this.#checking, boundDelay(SETTLE_MS)]);
  }

  /**
   * Stops idle servers, least recently used first over every member, while the running ones hold
   * more than the budget. Unless `now`, at most once a second; never in a request's way.
   */
  check(now = false): void {
    const budget = this.budgetMiB;
    if (budget === undefined || this.#checking) return;
    // Checked every CHECK_EVERY_MS from the first check after a server's start, not from the
    // first join, which comes before any spawn: a process's first timer loads Deno's.
    if (!this.#timer && this.#members.size > 0) {
      this.#timer = setInterval(() => this.check(true), CHECK_EVERY_MS);
      Deno.unrefTimer(this.#timer);
    }
    if (!now && Date.now() - this.#checkedAt < THROTTLE_MS) return;
    this.#checkedAt = Date.now();
    this.#due = false;
    // Where Deno may not read /proc, `ps` reads it: its output is awaited, not waited on.
    this.#checking = readProcessesSoon()
      .then((processes) => this.#enforce(processes, budget))
      .then(() => {}, () => {})
      .finally(() => this.#checking = undefined);
  }

  #enforce(processes: ProcessTable | undefined, budget: number): Promise<unknown> {
    const owners = new Map<string, { member: BudgetMember; key: string; rssMiB: number }>();
    const servers: BudgetServer[] = [];
    let n = 0;
    for (const member of this.#members) {
      for (const server of member.servers(processes)) {
        // Unique across members: two sessions may name their servers alike.
        const id = `${n++}\u0000${server.key}`;
        owners.set(id, { member, key: server.key, rssMiB: server.rssMiB ?? 0 });
        servers.push({ ...server, key: id });
      }
    }
    const decision = decideBudget(servers, budget);
    this.#over = decision.over ? { decision, owners } : undefined;
    return Promise.all(decision.stop.map((id) => {
      const { member, key, rssMiB } = owners.get(id)!;
      return member.stop(
        key,
        `stopped to keep the servers within the memory budget of ${budget} MiB (it held ` +
          `${Math.round(rssMiB)} MiB and was the least recently used); it starts again on its ` +
          "next question",
      );
    }));
  }
}
