import type Database from "better-sqlite3";
import { describe, expectTypeOf, it } from "vitest";
import type { migrate } from "./migrations.js";
import type { sqliteStorage } from "./sqlite-storage.js";

// The adapter declares the subset of better-sqlite3 it uses instead of importing its types;
// this checks that a team's own better-sqlite3 handle still fits it.
describe("a better-sqlite3 Database a team already has", () => {
  it("is a storage's database and migrations' database as it is", () => {
    expectTypeOf<Database.Database>().toExtend<Parameters<typeof sqliteStorage>[0]>();
    expectTypeOf<Database.Database>().toExtend<Parameters<typeof migrate>[0]>();
  });
});
