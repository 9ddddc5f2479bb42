import type { SqliteDatabase, SqliteStatement } from "./sqlite-database.js";

/** The savepoint statements, prepared once per connection: `exec` parses its text every time. */
interface SavepointStatements {
  begin: SqliteStatement;
  release: SqliteStatement;
  rollback: SqliteStatement;
}

const savepointsOf = new WeakMap<SqliteDatabase, SavepointStatements>();

/**
 * One name serves every level: SQLite's RELEASE and ROLLBACK TO act on the innermost savepoint
 * of that name, which is always the one this call opened.
 */
function savepoints(db: SqliteDatabase): SavepointStatements {
  let statements = savepointsOf.get(db);
  if (statements === undefined) {
    statements = {
      begin: db.prepare("SAVEPOINT tidings_atomically"),
      release: db.prepare("RELEASE tidings_atomically"),
      rollback: db.prepare("ROLLBACK TO tidings_atomically"),
    };
    savepointsOf.set(db, statements);
  }
  return statements;
}

/**
 * Runs the synchronous `fn` atomically: in its own `BEGIN IMMEDIATE` transaction, or, when a
 * transaction is already open (inside `storage.transaction`), in a savepoint of it, so a method
 * made of several statements never leaves half of its writes behind.
 */
export function atomically<T>(db: SqliteDatabase, fn: () => T): T {
  if (db.inTransaction) {
    const savepoint = savepoints(db);
    savepoint.begin.run();
    try {
      const result = fn();
      savepoint.release.run();
      return result;
    } catch (error) {
      savepoint.rollback.run();
      savepoint.release.run();
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
