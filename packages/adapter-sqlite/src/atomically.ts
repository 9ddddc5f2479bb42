import type { SqliteDatabase } from "./sqlite-database.js";

let savepoints = 0;

/**
 * Runs the synchronous `fn` atomically: in its own `BEGIN IMMEDIATE` transaction, or, when a
 * transaction is already open (inside `storage.transaction`), in a savepoint of it, so a method
 * made of several statements never leaves half of its writes behind.
 */
export function atomically<T>(db: SqliteDatabase, fn: () => T): T {
  if (db.inTransaction) {
    savepoints += 1;
    const name = `tidings_${savepoints}`;
    db.exec(`SAVEPOINT ${name}`);
    try {
      const result = fn();
      db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
      throw error;
    }
  }
  // IMMEDIATE takes the write lock up front, so a read-then-write never fails half-way with
  // SQLITE_BUSY when another process writes between the two.
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
