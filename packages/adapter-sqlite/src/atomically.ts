import type { Sql, SqliteDatabase } from "./sqlite-database.js";

/**
 * Runs the synchronous `fn` atomically: in its own `BEGIN IMMEDIATE` transaction, or, when a
 * transaction is already open (inside `storage.transaction`), in a savepoint of it, so a method
 * made of several statements never leaves half of its writes behind. The savepoint's statements
 * come prepared from the connection's cache (`exec` parses its text every time), under one name
 * for every level: SQLite's RELEASE and ROLLBACK TO act on the innermost savepoint of that
 * name, which is always the one this call opened.
 */
export function atomically<T>(db: SqliteDatabase, sql: Sql, fn: () => T): T {
  if (db.inTransaction) {
    sql("SAVEPOINT tidings_atomically").run();
    try {
      const result = fn();
      sql("RELEASE tidings_atomically").run();
      return result;
    } catch (error) {
      sql("ROLLBACK TO tidings_atomically").run();
      sql("RELEASE tidings_atomically").run();
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
