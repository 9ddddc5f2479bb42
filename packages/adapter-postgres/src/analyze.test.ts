import { skippedUnless } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { analyzeNewTables } from "./analyze.js";
import { quoteIdent } from "./tables.js";
import { serverUrl, testDatabaseOfFile } from "./testing/test-database.js";

const db = testDatabaseOfFile();

const ORG = "org_01m8000000000000000000000a";

describe("analyzeNewTables", () => {
  // Server only: PGlite never counts a table's rows (n_live_tup stays 0), so nothing qualifies.
  it.skipIf(
    skippedUnless(
      serverUrl !== undefined,
      "ANALYZE of new tables is checked on a PostgreSQL server (PGlite has no autovacuum); set TIDINGS_TEST_PG_URL to run them",
    ),
  )(
    "analyzes a never-analyzed table once it is large, so a phone lookup uses its own index",
    async () => {
      const { schema, drop } = await db.freshSchema();
      const profiles = `${quoteIdent(schema)}.profiles`;
      try {
        await db.client.query(
          `INSERT INTO ${profiles} (id, organization_id, phone_number, viber_marketing_consent,
             sms_marketing_consent, attributes, source, status, created_at, updated_at)
           SELECT 'prf_' || g, $1, '+1415' || (2000000 + g), false, false, '{}', 'api', 'active',
             '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
           FROM generate_series(1, 5000) g`,
          [ORG],
        );
        // The statistics of the insert reach pg_stat_user_tables within about a second.
        for (let i = 0; i < 50; i++) {
          const { rows: counted } = await db.client.query(
            "SELECT n_live_tup FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'profiles'",
            [schema],
          );
          if (Number((counted[0] as { n_live_tup: unknown } | undefined)?.n_live_tup) >= 1_000)
            break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // A table the caller already handled is not tried again, whatever the catalog says.
        expect(await analyzeNewTables(db.client, { schema, except: ["profiles"] })).toEqual([]);
        expect(await analyzeNewTables(db.client, { schema })).toEqual(["profiles"]);
        const { rows } = await db.client.query(
          `EXPLAIN SELECT * FROM ${profiles}
           WHERE organization_id = $1 AND phone_number = $2 AND status = 'active'`,
          [ORG, "+14152000005"],
        );
        const plan = (rows as Array<{ "QUERY PLAN": string }>).map((r) => r["QUERY PLAN"]);
        expect(plan.join("\n")).toContain("profiles_active_phone");
        // Once analyzed, a table is left to autovacuum; small tables are not analyzed at all.
        expect(await analyzeNewTables(db.client, { schema })).toEqual([]);
      } finally {
        await drop();
      }
    },
  );

  it("leaves tables with fewer than minRows rows alone", async () => {
    const { schema, drop } = await db.freshSchema();
    try {
      expect(await analyzeNewTables(db.client, { schema })).toEqual([]);
    } finally {
      await drop();
    }
  });
});
