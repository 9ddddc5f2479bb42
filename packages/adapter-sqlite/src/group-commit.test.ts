import { setTimeout as sleep } from "node:timers/promises";
import { cleanupsEach } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { groupCommit } from "./group-commit.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import { recordingDatabase } from "./testing/recording-database.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const FAR = Number.MAX_SAFE_INTEGER;
const cleanups = cleanupsEach();

/**
 * A database file with a `notes` table, the writer connection under test, a second connection
 * that sees only what was committed, and every BEGIN and COMMIT the writer ran so far.
 */
function setup() {
  const file = tempDatabaseFile();
  const raw = new Database(file.path);
  raw.exec("PRAGMA journal_mode = WAL");
  raw.exec("CREATE TABLE notes (n INTEGER PRIMARY KEY, parent INTEGER REFERENCES notes (n))");
  raw.exec("PRAGMA foreign_keys = ON");
  const observer = new Database(file.path, { readonly: true });
  cleanups.push(() => {
    observer.close();
    raw.close();
    file.remove();
  });
  const { db, execs } = recordingDatabase(raw);
  const transactions = () => execs.filter((sql) => sql === "BEGIN IMMEDIATE" || sql === "COMMIT");
  const insert = (n: number, parent: number | null = null) =>
    raw.prepare("INSERT INTO notes (n, parent) VALUES (?, ?)").run(n, parent);
  const committed = () =>
    (observer.prepare("SELECT n FROM notes ORDER BY n").all() as Array<{ n: number }>).map(
      (row) => row.n,
    );
  return { db, raw, transactions, insert, committed };
}

/** A unit that writes 2, waits, writes 3, then fails. */
const changesItsMind = (insert: (n: number) => unknown) => async () => {
  insert(2);
  await sleep(1);
  insert(3);
  throw new Error("changed my mind");
};

describe("groupCommit", () => {
  it("work queued together shares one BEGIN and one COMMIT, and each result waits for it", async () => {
    const { db, transactions, insert, committed } = setup();
    const group = groupCommit(db);
    const seenAtResolve: number[][] = [];
    const units = Array.from({ length: 10 }, (_, n) =>
      group
        .run(() => insert(n), n % 2 === 0 ? "atomic" : "savepoint", FAR)
        .then(() => seenAtResolve.push(committed())),
    );
    await Promise.all(units);
    expect(transactions()).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);
    // No caller heard of its write before another connection could read all ten.
    for (const seen of seenAtResolve) expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("a failing unit takes back only its own writes; the others in its group commit", async () => {
    const { db, insert, committed } = setup();
    const group = groupCommit(db);
    const before = group.run(() => insert(1), "savepoint", FAR);
    const failing = group.run(changesItsMind(insert), "savepoint", FAR);
    const after = group.run(() => insert(4), "atomic", FAR);
    await expect(failing).rejects.toThrow("changed my mind");
    await Promise.all([before, after]);
    expect(committed()).toEqual([1, 4]);
  });

  it("the first unit of a group runs without a savepoint; failing, it takes back only its own writes", async () => {
    const { raw, insert, committed } = setup();
    const watched = recordingDatabase(raw);
    const group = groupCommit(watched.db);
    // Alone in its group: no savepoint, so no statement journal of the pages it changes.
    await group.run(() => insert(1), "savepoint", FAR);
    expect(watched.execs).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);

    const failing = group.run(changesItsMind(insert), "savepoint", FAR);
    // Queued while the first one runs: they go on in a transaction of their own, whose first
    // unit needs no savepoint either.
    await sleep(0);
    const after = [
      group.run(() => insert(4), "savepoint", FAR),
      group.run(() => insert(5), "atomic", FAR),
    ];
    await expect(failing).rejects.toThrow("changed my mind");
    await Promise.all(after);
    expect(committed()).toEqual([1, 4, 5]);
    expect(watched.execs.slice(2)).toEqual([
      "BEGIN IMMEDIATE",
      "ROLLBACK",
      "BEGIN IMMEDIATE",
      "COMMIT",
    ]);
    expect(raw.inTransaction).toBe(false);
  });

  it("when SQLite will not take back a unit's writes, its whole group fails and the queue goes on", async () => {
    const { raw, insert, committed } = setup();
    let refuse = true;
    const db: SqliteDatabase = {
      ...raw,
      prepare: (sql) => raw.prepare(sql),
      exec(sql) {
        if (refuse && sql === "ROLLBACK TO tidings_unit") {
          refuse = false;
          throw new Error("disk I/O error");
        }
        raw.exec(sql);
      },
      get inTransaction() {
        return raw.inTransaction;
      },
      close: () => raw.close(),
    };
    const group = groupCommit(db);
    const before = group.run(() => insert(1), "savepoint", FAR);
    // Second in its group, so in a savepoint, which SQLite then refuses to roll back.
    const failing = group.run(changesItsMind(insert), "savepoint", FAR);
    await expect(failing).rejects.toThrow("disk I/O error");
    await expect(before).rejects.toThrow("disk I/O error");
    // Nothing of that group was kept, and the next write is not stuck behind it.
    await group.run(() => insert(5), "savepoint", FAR);
    expect(committed()).toEqual([5]);
  });

  it("a COMMIT that fails fails every unit of its group and keeps none of their writes", async () => {
    const { db, raw, insert, committed } = setup();
    const group = groupCommit(db);
    const units = [
      group.run(() => insert(1), "atomic", FAR),
      group.run(
        () => {
          // Checked at COMMIT instead of at once: this row's parent never exists.
          raw.exec("PRAGMA defer_foreign_keys = ON");
          insert(2, 99);
        },
        "savepoint",
        FAR,
      ),
      group.run(() => insert(3), "atomic", FAR),
    ];
    const outcomes = await Promise.allSettled(units);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(committed()).toEqual([]);
    expect(raw.inTransaction).toBe(false);
    // The connection goes on working.
    await group.run(() => insert(5), "atomic", FAR);
    expect(committed()).toEqual([5]);
  });

  it("a unit that arrives while a group runs starts the next group, in order", async () => {
    const { db, transactions, insert, committed } = setup();
    const group = groupCommit(db);
    const order: number[] = [];
    const first = group.run(
      async () => {
        insert(1);
        await sleep(5); // the event loop turns: the next unit arrives meanwhile
        order.push(1);
      },
      "savepoint",
      FAR,
    );
    await sleep(1);
    const second = group.run(
      () => {
        insert(2);
        order.push(2);
      },
      "atomic",
      FAR,
    );
    await Promise.all([first, second]);
    expect(order).toEqual([1, 2]);
    expect(committed()).toEqual([1, 2]);
    expect(transactions().filter((sql) => sql === "COMMIT").length).toBeGreaterThanOrEqual(1);
  });

  it("limits a group to maxUnits, so a stream of work still gets answers", async () => {
    const { db, transactions, insert } = setup();
    const group = groupCommit(db, { maxUnits: 4 });
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => group.run(() => insert(n), "atomic", FAR)),
    );
    expect(transactions().filter((sql) => sql === "COMMIT")).toHaveLength(3);
  });

  it("idle() waits for queued work", async () => {
    const { db, insert, committed } = setup();
    const group = groupCommit(db);
    void group.run(
      async () => {
        await sleep(5);
        insert(1);
      },
      "savepoint",
      FAR,
    );
    await group.idle();
    expect(committed()).toEqual([1]);
  });
});
