import { aDelivery, at } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import type { Migration } from "./migrations.js";
import {
  latestSchemaVersion,
  migrate,
  migrations,
  SchemaTooNewError,
  schemaVersion,
} from "./migrations.js";

const every = migrations.map((m) => m.version);

import { postgresStorage } from "./postgres-storage.js";
import { quoteIdent, tablesIn } from "./tables.js";
import { testDatabaseOfFile } from "./testing/test-database.js";

const db = testDatabaseOfFile();

/** Runs `fn` with a fresh, unmigrated schema name, dropping the schema afterwards. */
async function withSchema(fn: (schema: string) => Promise<void>): Promise<void> {
  const schema = db.newSchemaName();
  try {
    await fn(schema);
  } finally {
    await db.client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  }
}

const tablesOf = async (schema: string): Promise<string[]> => {
  const { rows } = await db.client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    [schema],
  );
  return (rows as { table_name: string }[]).map((row) => row.table_name);
};

describe("migrate", () => {
  it("creates the schema and every table, records the version, and is safe to run twice", async () => {
    await withSchema(async (schema) => {
      expect(await schemaVersion(db.client, { schema })).toBe(0);
      const first = await migrate(db.client, { schema });
      expect(first).toEqual({ applied: every, version: latestSchemaVersion });
      expect(await tablesOf(schema)).toContain("deliveries");
      const second = await migrate(db.client, { schema });
      expect(second).toEqual({ applied: [], version: latestSchemaVersion });
      expect(await schemaVersion(db.client, { schema })).toBe(latestSchemaVersion);
    });
  });

  it("5 concurrent migrate calls apply each migration once", async () => {
    await withSchema(async (schema) => {
      // On the server each call runs on its own connection and waits on the advisory lock.
      const results = await Promise.all(
        Array.from({ length: 5 }, () => migrate(db.client, { schema })),
      );
      expect(results.flatMap((r) => r.applied).sort((a, b) => a - b)).toEqual(every);
      expect(results.every((r) => r.version === latestSchemaVersion)).toBe(true);
      const { rows } = await db.client.query(
        `SELECT version FROM ${tablesIn(schema).schemaMigrations}`,
      );
      expect(rows).toHaveLength(every.length);
    });
  });

  it("refuses a database migrated by newer code and changes nothing", async () => {
    await withSchema(async (schema) => {
      await migrate(db.client, { schema });
      const record = tablesIn(schema).schemaMigrations;
      await db.client.query(
        `INSERT INTO ${record} (version, name, applied_at) VALUES (999, 'future', 'x')`,
      );
      const before = await tablesOf(schema);
      const refusal = await migrate(db.client, { schema }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SchemaTooNewError);
      expect(refusal).toMatchObject({ databaseVersion: 999, codeVersion: latestSchemaVersion });
      expect(await tablesOf(schema)).toEqual(before);
      expect(await schemaVersion(db.client, { schema })).toBe(999);
    });
  });

  it("applies pending migrations in version order and rolls all of them back when one fails", async () => {
    await withSchema(async (schema) => {
      const one: Migration = { version: 1, name: "a", statements: ["CREATE TABLE a (id INT)"] };
      const two: Migration = { version: 2, name: "b", statements: ["CREATE TABLE b (id INT)"] };
      const broken: Migration = { version: 3, name: "c", statements: ["CREATE TABLE a (id INT)"] };
      await expect(
        migrate(db.client, { schema, migrations: [broken, two, one] }),
      ).rejects.toThrow();
      expect(await tablesOf(schema)).toEqual([]);
      expect(await migrate(db.client, { schema, migrations: [two, one] })).toEqual({
        applied: [1, 2],
        version: 2,
      });
      expect(await tablesOf(schema)).toEqual(["a", "b", "schema_migrations"]);
    });
  });

  it("v13 leaves room on the pages of deliveries: pending rows stay, and a lease stays on its page", async () => {
    await withSchema(async (schema) => {
      const deliveries = tablesIn(schema).deliveries;
      const organizationId = "org_1";
      const pending = (n: number, webhookId: string) =>
        Array.from({ length: n }, (_, i) =>
          aDelivery({
            organizationId,
            eventId: `evt_${webhookId}_${i}`,
            destination: { kind: "subscription", webhookId },
            // A message event's size, so a page holds several rows.
            payload: JSON.stringify({ topic: "message.sent", padding: "x".repeat(600) }),
          }),
        );
      /** Each delivery's page (block) in the table, by id. */
      const pagesOf = async (): Promise<Map<string, string>> => {
        const { rows } = await db.client.query(
          `SELECT id, (ctid::text::point)[0]::text AS page FROM ${deliveries}`,
        );
        return new Map((rows as { id: string; page: string }[]).map((r) => [r.id, r.page]));
      };
      const storage = postgresStorage(db.client, { schema });

      await migrate(db.client, { schema, migrations: migrations.filter((m) => m.version < 13) });
      const before = pending(40, "wh_before");
      for (const d of before) await storage.deliveries.insert(d);
      expect(await migrate(db.client, { schema })).toEqual({
        applied: [13],
        version: latestSchemaVersion,
      });
      const { rows } = await db.client.query(
        "SELECT reloptions FROM pg_class WHERE oid = $1::regclass",
        [deliveries],
      );
      expect(rows[0]).toEqual({ reloptions: ["fillfactor=60"] });

      // Rows written before the migration are still pending and claimable.
      const claimedBefore = await storage.deliveries.claimDue(at(1), 100, "engine-a", 60_000);
      expect(claimedBefore.map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());

      // Rows written after it leave room: the lease of a claim of two, which changes no indexed
      // column, is written beside each row on its page, which makes the update heap-only. On a
      // full page (no room, nothing dead to prune yet) each lease moves to another page.
      const after = pending(40, "wh_after");
      for (const d of after) await storage.deliveries.insert(d);
      const written = await pagesOf();
      const claimedAfter = await storage.deliveries.claimDue(at(1), 2, "engine-b", 60_000);
      expect(claimedAfter).toHaveLength(2);
      const leased = await pagesOf();
      for (const d of claimedAfter) expect(leased.get(d.id)).toBe(written.get(d.id));
    });
  });
});
