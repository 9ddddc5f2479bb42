import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type SqliteDatabase, statementCache } from "./sqlite-database.js";

const seeded = () => {
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE t (seq INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT);
    INSERT INTO t (name, score, note) VALUES ('ann', 1.5, NULL), ('bob', 2, 'x');`);
  return db;
};

describe("statementCache", () => {
  it("answers rows as the driver's objects, read as arrays", () => {
    const db = seeded();
    const sql = statementCache(db);
    const text = "SELECT seq, name AS who, score, note FROM t ORDER BY seq";
    const byDriver = db.prepare(text).all();
    expect(sql(text).all()).toEqual(byDriver);
    expect(sql(text).get()).toEqual(byDriver[0]);
    expect(sql("SELECT * FROM t WHERE seq = ?").get(99)).toBeUndefined();
    expect(sql("SELECT * FROM t WHERE seq = ?").all(99)).toEqual([]);
    // Columns of the same name: the last one wins, as in the driver's objects.
    expect(sql("SELECT 1 AS a, 2 AS a").get()).toEqual(db.prepare("SELECT 1 AS a, 2 AS a").get());
  });

  it("keeps RETURNING rows, write results and the same statement for the same text", () => {
    const db = seeded();
    const sql = statementCache(db);
    const insert = "INSERT INTO t (name, score) VALUES (?, ?) RETURNING seq, name";
    expect(sql(insert).get("cid", 3)).toEqual({ seq: 3, name: "cid" });
    expect(sql("UPDATE t SET score = ? WHERE name = ?").run(9, "cid")).toMatchObject({
      changes: 1,
    });
    expect(sql(insert)).toBe(sql(insert));
  });

  it("leaves statements of a driver without raw rows as they are", () => {
    const db = seeded();
    const plain: SqliteDatabase = {
      prepare: (text) => {
        const statement = db.prepare(text);
        return {
          run: (...params) => statement.run(...params),
          get: (...params) => statement.get(...params),
          all: (...params) => statement.all(...params),
        };
      },
      exec: (text) => db.exec(text),
      get inTransaction() {
        return db.inTransaction;
      },
      close: () => db.close(),
    };
    expect(statementCache(plain)("SELECT name FROM t ORDER BY seq").all()).toEqual([
      { name: "ann" },
      { name: "bob" },
    ]);
  });
});
