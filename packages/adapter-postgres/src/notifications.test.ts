import {
  anApiKey,
  seedDelivery,
  seedOrganization,
  skippedUnless,
  waitUntil,
} from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { listenForKeyChanges } from "./notifications.js";
import { postgresStorage } from "./postgres-storage.js";
import { aSchemaName, serverUrl, testDatabaseOfFile } from "./testing/test-database.js";
import { countWakes } from "./testing/wake-count.js";

const db = testDatabaseOfFile();

describe("listenForDeliveries", () => {
  // Server only: PGlite runs in this process and has no connection that could break.
  it.skipIf(
    skippedUnless(
      serverUrl !== undefined,
      "LISTEN/NOTIFY reconnection needs a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
    ),
  )(
    "listens again after its connection is killed, and wakes for work inserted afterwards",
    async () => {
      const { schema, drop } = await db.freshSchema();
      const applicationName = `tidings-listener-${aSchemaName()}`;
      const pool = new pg.Pool({ connectionString: serverUrl, application_name: applicationName });
      const errors: Error[] = [];
      const listener = await countWakes(pool, {
        schema,
        reconnectDelayMs: 20,
        onError: (error) => errors.push(error),
      });
      try {
        const storage = postgresStorage(db.client, { schema });
        const org = await seedOrganization(storage);
        const { rows } = await db.client.query(
          "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity " +
            "WHERE application_name = $1",
          [applicationName],
        );
        expect(rows).toEqual([{ killed: true }]);
        await waitUntil(
          "the listener to report its lost connection",
          10_000,
          () => errors.length > 0,
        );
        // Keep inserting until the new connection has subscribed and hears one.
        await waitUntil("a wake on the new connection", 10_000, async () => {
          await seedDelivery(storage, org);
          return listener.wakes() > 0;
        });
      } finally {
        await listener.stop();
        await pool.end();
        await drop();
      }
    },
  );

  it("stops waking once stopped", async () => {
    const { schema, drop } = await db.freshSchema();
    const source = db.anotherClient(2);
    const listener = await countWakes(source.listenSource, { schema });
    try {
      const storage = postgresStorage(db.client, { schema });
      const org = await seedOrganization(storage);
      await seedDelivery(storage, org);
      await waitUntil("the first wake", 10_000, () => listener.wakes() === 1);
      await listener.stop();
      await seedDelivery(storage, org);
      // A second listener subscribed after the insert hears the next one, proving the first
      // insert's notification had time to arrive at the stopped one too.
      const probe = await countWakes(source.listenSource, { schema });
      await seedDelivery(storage, org);
      await waitUntil("the probe's wake", 10_000, () => probe.wakes() === 1);
      await probe.stop();
      expect(listener.wakes()).toBe(1);
    } finally {
      await source.close();
      await drop();
    }
  });
});

describe("listenForKeyChanges", () => {
  it("hears every change to a key of its schema, made through the storage or by hand in SQL", async () => {
    const { schema, drop } = await db.freshSchema();
    const other = await db.freshSchema();
    const source = db.anotherClient(2);
    const changed: Array<string | null> = [];
    const listening: boolean[] = [];
    const stop = await listenForKeyChanges(source.listenSource, (id) => changed.push(id), {
      schema,
      onListening: (value) => listening.push(value),
    });
    try {
      expect(listening).toEqual([true]);
      const storage = postgresStorage(db.client, { schema });
      const org = (await seedOrganization(storage)).organization.id;
      const [a, b] = [anApiKey({ organizationId: org }), anApiKey({ organizationId: org })];
      await storage.apiKeys.insert(a);
      await storage.apiKeys.insert(b);
      // The same key revoked in the other schema is not this listener's business.
      const elsewhere = postgresStorage(db.client, { schema: other.schema });
      const elsewhereOrg = (await seedOrganization(elsewhere)).organization.id;
      await elsewhere.apiKeys.insert({ ...a, organizationId: elsewhereOrg });
      await elsewhere.apiKeys.revoke(a.id, "2026-01-01T00:00:01.000Z");
      await storage.apiKeys.revoke(a.id, "2026-01-01T00:00:01.000Z");
      await db.client.query(`UPDATE "${schema}".api_keys SET name = 'by hand' WHERE id = $1`, [
        b.id,
      ]);
      await db.client.query(`DELETE FROM "${schema}".api_keys WHERE id = $1`, [b.id]);
      await waitUntil("three changes", 10_000, () => changed.length >= 3);
      expect(changed).toEqual([a.id, b.id, b.id]);
    } finally {
      await stop();
      expect(listening).toEqual([true, false]);
      await source.close();
      await other.drop();
      await drop();
    }
  });
});
