import {
  createIds,
  type DeliveryRecord,
  importProfiles,
  type MessageEventRecord,
  type Repositories,
  type Storage,
  systemClock,
} from "@tidings/core";
import {
  aDelivery,
  anEvent,
  anOrganization,
  aPhone,
  aProfile,
  at,
  readableSecretBox,
  repeatUntilDone,
  seedDelivery,
  seedMessage,
  seedOrganization,
  seedWebhook,
  skippedUnless,
  waitUntil,
} from "@tidings/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PgClient } from "./pg-client.js";
import { postgresStorage } from "./postgres-storage.js";
import { serverUrl, testDatabaseOfFile } from "./testing/test-database.js";
import { countWakes } from "./testing/wake-count.js";

// Each "process" is a storage over a pool of its own on the server, so the guarantees below
// are held by PostgreSQL across connections, not by anything in this process. On PGlite (one
// connection by nature) the processes share the instance and the same tests still run.
const db = testDatabaseOfFile();
let schema: string;
let drop: () => Promise<void>;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  ({ schema, drop } = await db.freshSchema());
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await drop();
});

/** A storage over a client of its own, closed after the test. */
function aProcess(max = 5): { storage: Storage; client: PgClient } {
  const { client, close } = db.anotherClient(max);
  closers.push(close);
  return { storage: postgresStorage(client, { schema }), client };
}

describe("across processes", () => {
  it("two processes claiming at once never receive the same delivery, and together take all", async () => {
    const a = aProcess();
    const b = aProcess();
    const org = await seedOrganization(a.storage);
    const webhook = await seedWebhook(a.storage, org);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      ids.push((await seedDelivery(a.storage, org, { nextAttemptAt: at(i / 100) }, webhook)).id);
    }
    const drain = async (storage: Storage, owner: string): Promise<string[]> => {
      const taken: string[] = [];
      // Sixty deliveries in batches of three: a claim that hands out leased rows would not end.
      await repeatUntilDone(`draining claims as ${owner}`, 25, async () => {
        const batch = await storage.deliveries.claimDue(at(10), 3, owner, 60_000);
        taken.push(...batch.map((d) => d.id));
        return batch.length === 0;
      });
      return taken;
    };
    // Three claimers per process, so claims overlap on every connection of both pools.
    const claims = await Promise.all([
      ...[1, 2, 3].map((n) => drain(a.storage, `a-${n}`)),
      ...[1, 2, 3].map((n) => drain(b.storage, `b-${n}`)),
    ]);
    const claimed = claims.flat();
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  it("50 concurrent hits from separate connections allow exactly the limit", async () => {
    const processes = Array.from({ length: 5 }, () => aProcess(10));
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        processes[i % processes.length]!.storage.rateLimits.hit("key_shared", 1_000, 60_000, 20),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("50 concurrent sends to one country with room for 20: exactly 20 pass, and the refused count nothing", async () => {
    const processes = Array.from({ length: 5 }, () => aProcess(10));
    const now = 1_000;
    const country = { key: "dst:c:org_1:GB", total: { limit: 20, until: now + 86_400_000 } };
    // A number each, so no send waits on another's window lock before reading the country.
    const number = (i: number) => ({
      key: `dst:n:${i}`,
      windows: [{ windowMs: 3_600_000, limit: 1_000 }],
    });
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        processes[i % processes.length]!.storage.rateLimits.hitSend({
          now,
          key: { key: "key_country", windowMs: 60_000, limit: 1_000 },
          destinations: [number(i), country],
        }),
      ),
    );
    expect(decisions.filter((d) => d.refusedBy === null)).toHaveLength(20);
    // Each refusal names the country (index 1), with the time until its day ends.
    for (const refused of decisions.filter((d) => d.refusedBy !== null)) {
      expect(refused).toEqual({ refusedBy: 1, resetMs: 86_400_000 });
    }
    // Only the 20 that passed counted toward the key and the number, whether a send was refused
    // at its first read of the country or found it filled after its key's hit.
    const [first] = processes;
    const key = await first!.storage.rateLimits.hit("key_country", now, 60_000, 1_000);
    expect(key.remaining).toBe(1_000 - 21);
    const { rows } = await first!.client.query(
      `SELECT count(*) AS n FROM "${schema}".destination_hits WHERE key LIKE 'dst:n:%'`,
    );
    expect(Number((rows[0] as { n: string }).n)).toBe(20);
  });

  it("20 concurrent inserts of one phone number in one organization store exactly one profile", async () => {
    const processes = Array.from({ length: 4 }, () => aProcess(5));
    const organization = anOrganization();
    await processes[0]!.storage.organizations.insert(organization);
    const phoneNumber = aPhone();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        processes[i % 4]!.storage.profiles.insert(
          aProfile({ organizationId: organization.id, phoneNumber }),
        ),
      ),
    );
    expect(results.filter((r) => r !== "phone_number_taken")).toHaveLength(1);
    const listed = await processes[1]!.storage.profiles.list({
      organizationId: organization.id,
      limit: 100,
    });
    expect(listed).toHaveLength(1);
  });

  // PGlite is one connection: an import's transaction and another writer cannot both be open.
  it.skipIf(
    skippedUnless(
      serverUrl !== undefined,
      "an import racing another writer needs a PostgreSQL server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )(
    "an import and a writer that share numbers wait for each other instead of deadlocking",
    async () => {
      const importer = aProcess();
      const rival = aProcess();
      const organization = anOrganization();
      await importer.storage.organizations.insert(organization);
      const [low, high] = ["+14155550101", "+14155550102"];
      // The import pauses after its first write, which holds that number until it commits.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding!: () => void;
      const isHolding = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const pausing = (tx: Repositories): Repositories => ({
        ...tx,
        profiles: {
          ...tx.profiles,
          insert: async (profile) => {
            const answer = await tx.profiles.insert(profile);
            holding();
            await released;
            return answer;
          },
        },
      });
      const paused: Storage = {
        ...importer.storage,
        transaction: (fn) => importer.storage.transaction((tx) => fn(pausing(tx))),
      };
      // The file lists the higher number first.
      const importing = importProfiles(
        { storage: paused, ids: createIds(), clock: systemClock, secretBox: readableSecretBox },
        { organizationId: organization.id, apiKeyId: null },
        [
          { row: 2, data: { phone_number: high } },
          { row: 3, data: { phone_number: low } },
        ],
        { source: "import" },
      );
      await isHolding;
      // The other writer takes the numbers in number order, as a batch of inserts does (one of
      // a process of the previous version waits with no lock timeout), in a transaction.
      const racing = rival.storage.transaction(async (tx) => [
        await tx.profiles.insert(aProfile({ organizationId: organization.id, phoneNumber: low })),
        await tx.profiles.insert(aProfile({ organizationId: organization.id, phoneNumber: high })),
      ]);
      // Bounded: the other writer is seen waiting for a number the import holds.
      await waitUntil("the other writer to wait for the import", 10_000, async () => {
        const { rows } = await rival.client.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE $1`,
          [`INSERT INTO "${schema}".%profiles%`],
        );
        return (rows[0] as { waiting: number }).waiting > 0;
      });
      release();
      const [imported, raced] = await Promise.allSettled([importing, racing]);
      expect(imported).toMatchObject({ status: "fulfilled" });
      expect(
        imported.status === "fulfilled" ? imported.value._unsafeUnwrap() : undefined,
      ).toMatchObject({ created: 2, updated: 0, unchanged: 0, rejected: [] });
      expect(raced).toEqual({
        status: "fulfilled",
        value: ["phone_number_taken", "phone_number_taken"],
      });
    },
  );

  /** A process that writes, and a wake counter listening from another connection. */
  const listeningWriter = async () => {
    const writer = aProcess();
    const source = db.anotherClient(2);
    closers.push(source.close);
    const listener = await countWakes(source.listenSource, { schema });
    closers.unshift(listener.stop);
    return { writer, listener };
  };

  it("a listener is woken when a pending delivery is inserted or redelivered, for its schema only", async () => {
    const { writer, listener } = await listeningWriter();
    const org = await seedOrganization(writer.storage);
    // Neither of these makes work: a delivered delivery, and one in another schema.
    await seedDelivery(writer.storage, org, { status: "delivered" });
    const other = await db.freshSchema();
    closers.push(other.drop);
    const elsewhere = postgresStorage(writer.client, { schema: other.schema });
    await seedDelivery(elsewhere, await seedOrganization(elsewhere));
    // Notifications arrive in commit order, so a wake from either would come first.
    const pending = await seedDelivery(writer.storage, org);
    await waitUntil("a wake for the pending delivery", 10_000, () => listener.wakes() >= 1);
    expect(listener.wakes()).toBe(1);

    const failed = await seedDelivery(writer.storage, org, { status: "failed" });
    expect(await writer.storage.deliveries.redeliver(org.organization.id, failed.id, at(9))).toBe(
      true,
    );
    await waitUntil("a wake for the redelivery", 10_000, () => listener.wakes() === 2);
    expect(pending.status).toBe("pending");
  });

  it("a listener is woken when an event is stored with pending deliveries, once it commits", async () => {
    const { writer, listener } = await listeningWriter();
    const org = await seedOrganization(writer.storage);
    const organizationId = org.organization.id;
    const { message } = await seedMessage(writer.storage, org);
    const eventOf = () => anEvent({ organizationId, messageId: message.id, topic: "message.seen" });
    const deliveryOf = (event: MessageEventRecord, status: DeliveryRecord["status"]) =>
      aDelivery({
        organizationId,
        eventId: event.id,
        messageId: message.id,
        destination: { kind: "subscription", webhookId: "whk_a" },
        status,
      });
    // None of these makes work: an event without deliveries (the seed's), one whose delivery
    // is already delivered, and one rolled back.
    const done = eventOf();
    await writer.storage.messages.insertEvent(done, [deliveryOf(done, "delivered")]);
    const undone = eventOf();
    await expect(
      writer.storage.transaction(async (tx) => {
        await tx.messages.insertEvent(undone, [deliveryOf(undone, "pending")]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    // Notifications arrive in commit order, so a wake from any of those would come first.
    const owed = eventOf();
    await writer.storage.messages.insertEvent(owed, [
      deliveryOf(owed, "pending"),
      deliveryOf(owed, "pending"),
    ]);
    await waitUntil("a wake for the pending deliveries", 10_000, () => listener.wakes() >= 1);
    expect(listener.wakes()).toBe(1);
  });
});
