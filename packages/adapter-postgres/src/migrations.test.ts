import { createHash } from "node:crypto";
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

  it("a database at released version 13 gains the recovery point's guard and the later versions", async () => {
    await withSchema(async (schema) => {
      await migrate(db.client, { schema, migrations: migrations.filter((m) => m.version <= 13) });
      expect(await migrate(db.client, { schema })).toEqual({
        applied: migrations.filter((m) => m.version > 13).map((m) => m.version),
        version: latestSchemaVersion,
      });
      // As text: node-postgres hands a bigint over as a string, PGlite as a number.
      const { rows } = await db.client.query(
        `SELECT ${tablesIn(schema).idempotencyHeld}(1)::text AS held`,
      );
      expect(rows).toEqual([{ held: "1" }]);
    });
  });

  it("v15 leaves room on the pages of deliveries: pending rows stay, and a lease stays on its page", async () => {
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

      await migrate(db.client, { schema, migrations: migrations.filter((m) => m.version < 15) });
      const before = pending(40, "wh_before");
      for (const d of before) await storage.deliveries.insert(d);
      expect(await migrate(db.client, { schema })).toEqual({
        applied: migrations.filter((m) => m.version > 14).map((m) => m.version),
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

/**
 * The SHA-256 of each released migration's statements (as JSON): a database migrated once
 * never runs a version again, so a released version's text must never change, also when its
 * source is rearranged (versions 6, 9, 13 and 16 build `rate_limit_hit` from shared parts). A new
 * version adds its hash here.
 */
const RELEASED_TEXT: Record<number, string> = {
  1: "832e9f76a6fa085989934790e4d72f794d4be88de52db4d9dfdab689792de336",
  2: "c022b0c1f26e2954087ba58e5aee44ba78f2cee90daff484cd427a3459b43d9a",
  3: "cd5e2c2864001a5cff9bc5316a09b77511e6e25fe231fa9b33eeb7894ab5e0f5",
  4: "98984723e52113addaf79632c7f4a0a769f7c1ea66c46b052eda2d500e9f9357",
  5: "32e8db9eff0f6dc664b5d2529abff961e63adf509be201c62039e4e8819bcbc1",
  6: "1a106f9924c3be1d45b2022f91b5e8ba980962b2b45859240714c54b1480ab32",
  7: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
  8: "d1f24271c41cb7de5edc901f997aae9a2cde1eb7c4e17a3b006e03f42f5285f0",
  9: "eb1a78ed315e78e4bc94870d4816fc2cc3a19ee83633e1ba4c33ee425af7d0d1",
  10: "90a64274625712f58a9d11c86cd97eb225d3ea429ba31ee59ff89414c91ab7b4",
  11: "de81f944a8d65806a4f7d13a0d596b7fca9acf21b68f8a35889393bd870b1692",
  12: "df297ead3d37d16ea29018185330881d73ccdbc29918fe792799493d0142263e",
  13: "32873a8421e7e3d059d6f28e82c53d6d1d5c714de62786d7f327388cfe574a05",
  14: "287c0f96f851d6bc7f71c0b57ec7348eaa118c7979b6db75c5f00495ba8b108e",
  15: "3de462a7b928ed215b2423a5c151940f76e499f8e4dc72c2643a948e894220a3",
  16: "2b90aabbd39d9d511af1871e159430b85d5a29c8db36f6be0baa12680156832d",
};

describe("released migrations", () => {
  it("keep the text they were released with", () => {
    const textOf = (m: Migration) =>
      createHash("sha256").update(JSON.stringify(m.statements)).digest("hex");
    const pinned = migrations.filter((m) => RELEASED_TEXT[m.version] !== undefined);
    expect(pinned.map((m) => [m.version, textOf(m)])).toEqual(
      pinned.map((m) => [m.version, RELEASED_TEXT[m.version]]),
    );
    expect(pinned.length).toBe(Object.keys(RELEASED_TEXT).length);
  });
});
