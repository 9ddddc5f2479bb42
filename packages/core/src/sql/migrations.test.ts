import { describe, expect, it } from "vitest";
import {
  SCHEMA_VERSIONS,
  type SchemaChanges,
  SchemaTooNewError,
  schemaMigrations,
} from "./migrations.js";

const {
  history: schemaHistory,
  latest: latestVersion,
  pending: pendingMigrations,
} = schemaMigrations;

const known = [
  { version: 3, name: "c" },
  { version: 1, name: "a" },
  { version: 2, name: "b" },
];

describe("pendingMigrations", () => {
  it("answers the migrations after the recorded version, oldest first", () => {
    expect(pendingMigrations(known, 0, "pkg").map((m) => m.version)).toEqual([1, 2, 3]);
    expect(pendingMigrations(known, 1, "pkg").map((m) => m.name)).toEqual(["b", "c"]);
    expect(pendingMigrations(known, 3, "pkg")).toEqual([]);
  });

  it("refuses a database that newer code migrated, naming both versions and the package", () => {
    const refusal = (() => {
      try {
        pendingMigrations(known, 4, "@tidings/adapter-x");
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(SchemaTooNewError);
    expect(refusal).toMatchObject({ databaseVersion: 4, codeVersion: 3 });
    expect((refusal as Error).message).toContain("@tidings/adapter-x");
  });

  it("takes the newest version as the code's, whatever the list's order", () => {
    expect(latestVersion(known)).toBe(3);
    expect(latestVersion([])).toBe(0);
  });
});

describe("schemaHistory", () => {
  it("numbers one database's changes by the shared history, from 1", () => {
    const names = Object.values(SCHEMA_VERSIONS);
    const changes = Object.fromEntries(
      Object.entries(SCHEMA_VERSIONS).map(([change, name]) => [change, `-- ${name}`]),
    ) as SchemaChanges<string>;
    const history = schemaHistory("sql", changes);
    expect(history[0]).toEqual({ version: 1, name: "initial schema", sql: "-- initial schema" });
    expect(history.map((m) => m.name)).toEqual(names);
    expect(history.map((m) => m.version)).toEqual(names.map((_, i) => i + 1));
  });
});
