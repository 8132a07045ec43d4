/**
 * Group commit: the event writers of one store share their transactions and their fsyncs.
 * Under `synchronous=FULL` every commit waits for an fsync (milliseconds on a busy disk, with
 * the event loop stopped, as better-sqlite3 is synchronous), so runs that append at the same
 * time (a served society's concurrent chats, an eval's items) would otherwise each stop for a
 * flush of their own. A commit here writes what every writer of the store has buffered, each
 * writer's rows in a savepoint of its own (one writer's refused row fails only that writer), in
 * one transaction.
 *
 * Two kinds of commit:
 * - in the background (a deadline: `maxWaitMs` after a paid answer, the writer's interval for
 *   the rest; or a full buffer), the transaction commits without an fsync and one fsync of the
 *   WAL follows on the thread pool, shared by every commit made while it runs; `durable()`
 *   waiters hear of it when it is done. A committed transaction survives a crash of the process
 *   (kill -9) at once; the fsync makes it survive a power cut too.
 * - at once (a person's answer, flush, close, the store's close, process exit), the transaction
 *   commits with its fsync before returning, as every other write of the store does, and covers
 *   every earlier commit.
 * Whatever is pending when the process exits is committed by an 'exit' hook, so
 * `process.exit` (a second Ctrl-C) loses nothing that was pushed.
 */

/** A writer as the group sees it (`BufferedEventWriter`). */
export interface GroupMember {
  /**
   * Writes the member's buffered rows (and, when it is closing, its end) inside the group's
   * transaction, in a savepoint of its own; throws (having written nothing of its own) on failure.
   * Returns what it wrote, for `settle`.
   */
  writeBuffered(): number;
  /**
   * Told after the group's transaction: how many rows it committed (`synced` when its fsync is
   * done too), or why none were.
   */
  settle(outcome: { written: number; synced: boolean } | { error: Error }): void;
  /** Told when an fsync covers the member's commits up to `written` rows, or failed. */
  synced(outcome: { written: number } | { error: Error }): void;
  /** Rows the member has committed so far. */
  readonly written: number;
}

/**
 * How a background commit skips its fsync and pays it later, off the event loop: `relaxed`
 * runs a transaction without the fsync (synchronous=NORMAL for its span), `fsync` flushes the
 * WAL on the thread pool.
 */
export interface DeferredSync {
  relaxed(fn: () => void): void;
  fsync(): Promise<void>;
  /** Lets go of what `fsync` holds (the store is closing). */
  close(): void;
}

/** Runs `fn` in one transaction (a nested call becomes a savepoint). */
export type Atomically = (fn: () => void) => void;

/** Default bound on how long a paid answer waits for its commit, in ms. */
export const DEFAULT_MAX_WAIT_MS = 2;

/** The groups with something buffered: the 'exit' hook commits them. */
const pendingGroups = new Set<GroupCommit>();
let exitHookInstalled = false;

function commitAllOnExit(): void {
  for (const group of [...pendingGroups]) {
    try {
      group.commit();
    } catch {
      // The process is ending; a failure was already told to the writer's onError.
    }
  }
}

/** Shares commits among the event writers of one store. */
export class GroupCommit {
  readonly maxWaitMs: number;
  readonly #atomically: Atomically;
  /** Writers with rows buffered (or a close pending), in the order they first buffered. */
  readonly #members = new Set<GroupMember>();
  /** The scheduled background commit: its deadline (performance.now()) and how to cancel it. */
  #scheduled: { at: number; cancel: () => void } | undefined;
  /** When the last commit finished (performance.now()). */
  lastCommit = Number.NEGATIVE_INFINITY;
  /** Transactions committed so far. */
  commits = 0;
  #disposed = false;
  readonly #deferred: DeferredSync | undefined;
  /** Members committed without an fsync since the last one began: their row counts then. */
  #unsynced = new Map<GroupMember, number>();
  /** The fsync on the thread pool, if one runs. */
  #syncing: Promise<void> | undefined;

  /**
   * Without `deferred` (an in-memory store, a writer made alone), every commit is a plain
   * transaction of `atomically`, fsynced or not as the connection is set.
   */
  constructor(atomically: Atomically, maxWaitMs = DEFAULT_MAX_WAIT_MS, deferred?: DeferredSync) {
    this.#atomically = atomically;
    this.maxWaitMs = Math.max(0, maxWaitMs);
    this.#deferred = deferred;
  }

  /** Notes that `member` has something to write in the next commit. */
  enlist(member: GroupMember): void {
    if (this.#disposed) return;
    this.#members.add(member);
    pendingGroups.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', commitAllOnExit);
    }
  }

  /** Forgets `member` (a closed writer). */
  leave(member: GroupMember): void {
    this.#members.delete(member);
    if (this.#members.size === 0) this.#idle();
  }

  /** Ensures a background commit no later than `at` (a performance.now() time). */
  commitBy(at: number): void {
    if (this.#disposed || (this.#scheduled && this.#scheduled.at <= at)) return;
    this.#scheduled?.cancel();
    const wait = at - performance.now();
    if (wait <= 0) {
      const immediate = setImmediate(this.#commitInBackground);
      this.#scheduled = { at, cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(this.#commitInBackground, wait);
      this.#scheduled = { at, cancel: () => clearTimeout(timer) };
    }
  }

  /**
   * Commits every member's buffered rows in one transaction: with its fsync before returning
   * when `now`, else without and one shared fsync after. Each member hears how its part went
   * (`settle`); a failing member fails alone, unless the transaction itself fails (a busy or
   * full disk), which fails all of them with nothing written.
   */
  commit(now = true): void {
    this.#scheduled?.cancel();
    this.#scheduled = undefined;
    if (this.#members.size === 0) return;
    const members = [...this.#members];
    const outcomes = new Map<GroupMember, { written: number } | { error: Error }>();
    const write = () =>
      this.#atomically(() => {
        for (const member of members) {
          try {
            outcomes.set(member, { written: member.writeBuffered() });
          } catch (error) {
            outcomes.set(member, { error: asError(error) });
          }
        }
      });
    const deferred = now ? undefined : this.#deferred;
    try {
      if (deferred) deferred.relaxed(write);
      else write();
    } catch (error) {
      for (const member of members) outcomes.set(member, { error: asError(error) });
    }
    this.commits++;
    this.lastCommit = performance.now();
    // A failed member keeps its rows but leaves the group: it is tried again when its writer
    // asks (flush, close), not by every commit another writer makes.
    for (const member of members) this.#members.delete(member);
    if (this.#members.size === 0) this.#idle();
    for (const member of members) {
      const outcome = outcomes.get(member) ?? { written: 0 };
      member.settle('error' in outcome ? outcome : { ...outcome, synced: !deferred });
    }
    if (deferred) {
      for (const member of members) this.#unsynced.set(member, member.written);
      this.#syncSoon();
    } else if (this.#deferred && this.#unsynced.size > 0) {
      // This commit's fsync flushed the WAL with every earlier commit in it.
      const covered = this.#unsynced;
      this.#unsynced = new Map();
      for (const [member, written] of covered) member.synced({ written });
    }
  }

  /**
   * Runs `fn` in a transaction of its own (not the writers'), committed without its fsync;
   * resolves once an fsync begun after it has finished (the shared one on the thread pool, or
   * a later commit's own), rejects when that fsync fails. Without a deferred sync (an
   * in-memory store) it commits as `atomically` does and resolves at once. Throws what `fn` or
   * the commit throws, having written nothing.
   */
  commitSoon(fn: () => void): Promise<void> {
    const deferred = this.#deferred;
    if (!deferred || this.#disposed) {
      this.#atomically(fn);
      return Promise.resolve();
    }
    deferred.relaxed(() => this.#atomically(fn));
    return new Promise((resolve, reject) => {
      // Told like a writer whose rows an fsync covers.
      const waiter: GroupMember = {
        written: 0,
        writeBuffered: () => 0,
        settle: () => {},
        synced: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve()),
      };
      this.#unsynced.set(waiter, 0);
      this.#syncSoon();
    });
  }

  /** Starts the shared fsync, or notes that another must follow the one running. */
  #syncSoon(): void {
    if (this.#syncing || this.#disposed || !this.#deferred || this.#unsynced.size === 0) return;
    const covered = this.#unsynced;
    this.#unsynced = new Map();
    this.#syncing = syncWal(this.#deferred).then((failure) => {
      this.#syncing = undefined;
      tellSynced(covered, failure);
      this.#syncSoon();
    });
  }

  /** Stops scheduling and leaves the exit hook (the store is closing). */
  dispose(): void {
    this.#disposed = true;
    this.#scheduled?.cancel();
    this.#scheduled = undefined;
    this.#members.clear();
    this.#idle();
    // An fsync still running finishes on its own handle, which closes after it; commits made
    // since it began (a `commitSoon` still waiting) get one more before the handle goes.
    const deferred = this.#deferred;
    const left = this.#unsynced;
    this.#unsynced = new Map();
    const finish = async () => {
      await this.#syncing;
      if (deferred && left.size > 0) tellSynced(left, await syncWal(deferred));
      deferred?.close();
    };
    if (this.#syncing || left.size > 0) void finish();
    else deferred?.close();
  }

  #idle(): void {
    pendingGroups.delete(this);
  }

  readonly #commitInBackground = (): void => {
    this.#scheduled = undefined;
    // Failures reach each writer through settle (its onError, its next push); a background
    // commit must not throw from a timer, which would end the process.
    this.commit(false);
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** One fsync of the WAL: undefined once it is done, or what failed. */
async function syncWal(deferred: DeferredSync): Promise<{ error: Error } | undefined> {
  try {
    await deferred.fsync();
    return undefined;
  } catch (error) {
    return { error: asError(error) };
  }
}

/** Tells each member an fsync covered how it went: its rows now durable, or the failure. */
function tellSynced(
  covered: Map<GroupMember, number>,
  failure: { error: Error } | undefined,
): void {
  for (const [member, written] of covered) member.synced(failure ?? { written });
}
