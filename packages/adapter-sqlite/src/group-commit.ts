import type { SqliteDatabase } from "./sqlite-database.js";
import { whileBusy } from "./while-busy.js";

/** How a unit of work joins a group: in a savepoint of its own, or as it is. */
export type Isolation = "savepoint" | "atomic";

/** Limits on one shared transaction, so answers never wait long behind a stream of work. */
export interface GroupLimits {
  /** The most units of work one COMMIT covers (default 128). */
  maxUnits?: number | undefined;
  /** After this many ms in a group, no further unit joins it (default 25). */
  maxMs?: number | undefined;
}

export interface GroupCommit {
  /**
   * Runs `work` on the connection when its turn comes, inside a transaction it may share with
   * the units queued beside it. Resolves only after that transaction committed; rejects at
   * once when `work` fails (its own writes rolled back, the group's kept), and rejects every
   * unit of a group whose COMMIT fails. `deadline` (epoch ms) bounds the wait for another
   * process's write lock.
   */
  run<T>(work: () => T | Promise<T>, isolation: Isolation, deadline: number): Promise<T>;
  /** Resolves once nothing is queued or running. */
  idle(): Promise<void>;
}

interface Unit {
  work: () => unknown;
  isolation: Isolation;
  deadline: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit on one SQLite connection. Units of work run one at a time, in the order they
 * asked; the ones that queue up while a transaction is open join it instead of each paying for
 * its own `BEGIN IMMEDIATE` and `COMMIT` (with the WAL append and checkpoint work a commit
 * brings). A unit that fails is rolled back to its savepoint, so it takes back only its own
 * writes. No unit's caller hears of success before the COMMIT that made it durable: results
 * are held until then, and a failed COMMIT fails them all.
 *
 * A `"savepoint"` unit (a `storage.transaction` callback, which may write, await, then fail)
 * runs in a savepoint of its own, unless it is the first of its group. An `"atomic"` unit is
 * one synchronous repository call that is already all-or-nothing (one statement, or
 * `atomically`'s own savepoint) and needs none.
 */
export function groupCommit(db: SqliteDatabase, limits: GroupLimits = {}): GroupCommit {
  const maxUnits = limits.maxUnits ?? 128;
  const maxMs = limits.maxMs ?? 25;
  const queue: Unit[] = [];
  let draining: Promise<void> | null = null;

  /**
   * Runs one unit inside the open transaction; what its caller hears once the group ends. The
   * group's first unit needs no savepoint: should it fail, the transaction holds its writes
   * alone and is rolled back whole (`"rolled back"`), and the next units start a new one. That
   * spares most groups a savepoint, and a lone transaction of many writes (a profile import)
   * a statement journal holding the original of every page it changes.
   */
  async function runUnit(unit: Unit, first: boolean): Promise<(() => void) | "rolled back"> {
    if (first && unit.isolation === "savepoint") {
      try {
        const value = await unit.work();
        return () => unit.resolve(value);
      } catch (error) {
        // Should ROLLBACK throw, `runGroup` fails this unit as the one running.
        if (db.inTransaction) db.exec("ROLLBACK");
        unit.reject(error);
        return "rolled back";
      }
    }
    if (unit.isolation === "atomic") {
      try {
        const value = unit.work();
        return () => unit.resolve(value);
      } catch (error) {
        unit.reject(error);
        return () => {};
      }
    }
    db.exec("SAVEPOINT tidings_unit");
    try {
      const value = await unit.work();
      db.exec("RELEASE tidings_unit");
      return () => unit.resolve(value);
    } catch (error) {
      // SQLite may have rolled the whole transaction back on its own (disk full, I/O error).
      if (db.inTransaction) {
        db.exec("ROLLBACK TO tidings_unit");
        db.exec("RELEASE tidings_unit");
      }
      unit.reject(error);
      return () => {};
    }
  }

  /** One shared transaction: as many queued units as the limits allow, then COMMIT. */
  async function runGroup(): Promise<void> {
    const first = queue[0]!;
    try {
      await whileBusy(() => db.exec("BEGIN IMMEDIATE"), first.deadline);
    } catch (error) {
      queue.shift();
      first.reject(error);
      return;
    }
    const started = Date.now();
    const done: Array<{ unit: Unit; settle: () => void }> = [];
    /** The unit running now, until its outcome is in `done` or told. */
    let current: Unit | undefined;
    try {
      while (queue.length > 0 && done.length < maxUnits) {
        if (done.length > 0 && Date.now() - started >= maxMs) break;
        current = queue.shift()!;
        const settle = await runUnit(current, done.length === 0);
        if (settle === "rolled back") return;
        done.push({ unit: current, settle });
        current = undefined;
        if (!db.inTransaction) break;
      }
      if (!db.inTransaction) {
        const lost = new Error("The transaction was rolled back by SQLite.");
        for (const { unit } of done) unit.reject(lost);
        return;
      }
      try {
        db.exec("COMMIT");
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        for (const { unit } of done) unit.reject(error);
        return;
      }
    } catch (error) {
      // SQLite refused to take back a unit's writes (ROLLBACK TO, RELEASE) or the group's: the
      // transaction may hold writes no one may keep, so none of it commits and every unit in
      // it fails. The queue goes on with the next group.
      try {
        if (db.inTransaction) db.exec("ROLLBACK");
      } catch {
        // Then the next group's BEGIN fails as well, and its units hear so: errors, not a hang.
      }
      for (const { unit } of done) unit.reject(error);
      current?.reject(error);
      return;
    }
    for (const { settle } of done) settle();
  }

  async function drain(): Promise<void> {
    // Let the work that this turn of the event loop queues join the first group.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0) await runGroup();
    draining = null;
  }

  return {
    run<T>(work: () => T | Promise<T>, isolation: Isolation, deadline: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, isolation, deadline, resolve: resolve as (v: unknown) => void, reject });
        draining ??= drain();
      });
    },
    async idle() {
      while (draining !== null) await draining;
    },
  };
}
