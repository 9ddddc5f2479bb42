import { createIds, followLink, type Storage } from "@tidings/core";
import {
  anOrganization,
  aProfile,
  at,
  seedMessage,
  seedOrganization,
  skippedUnless,
} from "@tidings/core/testing";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type PgClient,
  type PgPool,
  type PgQueryable,
  type PgTransactor,
  runTransaction,
} from "./pg-client.js";
import { postgresStorage } from "./postgres-storage.js";
import { postgresRawReaders } from "./testing/raw-readers.js";
import { serverUrl, testDatabaseOfFile } from "./testing/test-database.js";

// PostgreSQL-specific behaviour of the storage that the shared contract cannot see.
const db = testDatabaseOfFile();
let schema: string;
let drop: () => Promise<void>;
let storage: Storage;

beforeEach(async () => {
  ({ schema, drop } = await db.freshSchema());
  storage = postgresStorage(db.client, { schema });
});
afterEach(async () => {
  await storage.close();
  await drop();
});

/** A statement `recording` saw: its text and its values. */
interface Recorded {
  text: string;
  values: unknown[] | undefined;
}

/** `client` with every statement it runs recorded, on whichever connection. */
function recording(client: PgClient): { client: PgClient; statements: Recorded[] } {
  const statements: Recorded[] = [];
  const wrap = <Q extends PgQueryable>(target: Q): Q =>
    new Proxy(target, {
      get(inner, property) {
        if (property === "query") {
          return (text: string, values?: unknown[]) => {
            statements.push({ text, values });
            return inner.query(text, values);
          };
        }
        if (property === "connect" && "connect" in inner) {
          return async () => wrap(await (inner as unknown as PgPool).connect());
        }
        if (property === "transaction" && "transaction" in inner) {
          return (fn: (tx: PgQueryable) => Promise<unknown>) =>
            (inner as unknown as PgTransactor).transaction((tx) => fn(wrap(tx)));
        }
        const value: unknown = Reflect.get(inner, property, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return { client: wrap(client), statements };
}

describe("transactions on PostgreSQL", () => {
  it("a rate-limit hit of its own is one statement that commits without waiting for the WAL flush; inside a caller's transaction it leaves that transaction's durability alone", async () => {
    const recorded = recording(db.client);
    const watched = postgresStorage(recorded.client, { schema });
    // The function's last argument: whether this hit's transaction may commit asynchronously.
    const relaxes = (statement: Recorded) => statement.values?.at(-1);
    await watched.rateLimits.hit("key", 1_000, 60_000, 5);
    expect(recorded.statements).toHaveLength(1);
    expect(recorded.statements[0]?.text).toContain("rate_limit_hit");
    expect(relaxes(recorded.statements[0]!)).toBe(true);
    recorded.statements.length = 0;
    await watched.transaction(async (tx) => {
      await tx.rateLimits.hit("key", 1_001, 60_000, 5);
    });
    const hit = recorded.statements.find((statement) => statement.text.includes("rate_limit_hit"));
    expect(hit === undefined ? undefined : relaxes(hit)).toBe(false);
    // Both hits count.
    expect((await watched.rateLimits.hit("key", 1_002, 60_000, 5)).remaining).toBe(2);
    // What the flag does: the function turns synchronous_commit off for its transaction only.
    const setting = (relax: boolean) =>
      runTransaction(db.client, async (tx) => {
        await tx.query(
          `SELECT * FROM "${schema}".rate_limit_hit('tidings.rate:test', 'other', 0, 1, 5, $1)`,
          [relax],
        );
        const { rows } = await tx.query("SELECT current_setting('synchronous_commit') AS s");
        return (rows[0] as { s: string }).s;
      });
    expect(await setting(true)).toBe("off");
    expect(await setting(false)).toBe("on");
  });

  it("a refused phone number does not abort the transaction: later writes still commit", async () => {
    const organization = anOrganization();
    const holder = aProfile({ organizationId: organization.id });
    const other = aProfile({ organizationId: organization.id });
    const late = aProfile({ organizationId: organization.id });
    const outcome = await storage.transaction(async (tx) => {
      await tx.organizations.insert(organization);
      const first = await tx.profiles.insert(holder);
      const second = await tx.profiles.insert(other);
      if (first === "phone_number_taken" || second === "phone_number_taken") {
        throw new Error("expected both profiles to be stored");
      }
      const clash = await tx.profiles.insert({ ...late, phoneNumber: holder.phoneNumber });
      const moved = await tx.profiles.update({ ...second, phoneNumber: holder.phoneNumber });
      await tx.profiles.insert(late);
      return [clash, moved];
    });
    expect(outcome).toEqual(["phone_number_taken", "phone_number_taken"]);
    const raw = postgresRawReaders(db.client, schema);
    expect((await raw.profile(late.id))?.phoneNumber).toBe(late.phoneNumber);
    expect((await raw.profile(other.id))?.phoneNumber).toBe(other.phoneNumber);
  });

  it("a callback that swallows a failed statement is not committed, and the caller is told", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const fresh = anOrganization();
    const done = storage.transaction(async (tx) => {
      await tx.organizations.insert(fresh);
      // A duplicate id fails, and PostgreSQL aborts the transaction with it.
      await tx.organizations.insert(organization).catch(() => undefined);
      return "looks fine";
    });
    await expect(done).rejects.toThrow(/nothing was written/);
    expect(await storage.organizations.get(fresh.id)).toBeNull();
  });

  it("repositories kept past their transaction refuse to run", async () => {
    let kept: Parameters<Parameters<Storage["transaction"]>[0]>[0] | undefined;
    await storage.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.organizations.insert(anOrganization())).rejects.toThrow(/already ended/);
  });

  it("ping answers while open; a closed storage refuses every call", async () => {
    await expect(storage.ping()).resolves.toBeUndefined();
    await storage.close();
    await expect(storage.ping()).rejects.toThrow(/closed/);
    await expect(storage.organizations.get("org_x")).rejects.toThrow(/closed/);
    await expect(storage.transaction(async () => 1)).rejects.toThrow(/closed/);
    // The client is the caller's: closing the storage left it usable.
    expect((await db.client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("storages in different schemas of one database never see each other's rows", async () => {
    const other = await db.freshSchema();
    try {
      const neighbour = postgresStorage(db.client, { schema: other.schema });
      const organization = anOrganization();
      await storage.organizations.insert(organization);
      await neighbour.organizations.insert(organization);
      const profile = aProfile({ organizationId: organization.id });
      expect(await storage.profiles.insert(profile)).not.toBe("phone_number_taken");
      // The same number and id are free in the other schema.
      expect(await neighbour.profiles.insert(profile)).not.toBe("phone_number_taken");
      await neighbour.profiles.softDelete(organization.id, profile.id, at(1));
      expect(await storage.profiles.get(organization.id, profile.id)).not.toBeNull();
      expect(await neighbour.profiles.get(organization.id, profile.id)).toBeNull();
      // Each schema's rate_limit_hit counts that schema's hits only.
      expect((await storage.rateLimits.hit("send:k", 1_000, 60_000, 1)).allowed).toBe(true);
      expect((await neighbour.rateLimits.hit("send:k", 1_001, 60_000, 1)).allowed).toBe(true);
      expect((await storage.rateLimits.hit("send:k", 1_002, 60_000, 1)).allowed).toBe(false);
      for (const schema of [other.schema, "public"]) {
        const { rows } = await db.client.query(
          `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1 AND tablename = 'rate_limit_hits'`,
          [schema],
        );
        if ((rows[0] as { n: number }).n === 0) continue;
        const hits = await db.client.query(
          `SELECT count(*)::int AS n FROM "${schema}".rate_limit_hits`,
        );
        expect((hits.rows[0] as { n: number }).n).toBe(schema === other.schema ? 1 : 0);
      }
    } finally {
      await other.drop();
    }
  });
});

describe("profile inserts outside a transaction on PostgreSQL", () => {
  const isBatch = (statement: Recorded) =>
    /INSERT INTO .*profiles[\s\S]*FROM \(VALUES/.test(statement.text);
  const isInsert = (statement: Recorded) => /INSERT INTO .*profiles/.test(statement.text);

  it("those made in one turn share one statement, and each caller gets its own row or refusal", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const recorded = recording(db.client);
    const watched = postgresStorage(recorded.client, { schema });
    const profiles = Array.from({ length: 20 }, () =>
      aProfile({ organizationId: organization.id }),
    );
    const answers = await Promise.all(profiles.map((profile) => watched.profiles.insert(profile)));
    expect(recorded.statements.filter(isInsert)).toHaveLength(1);
    expect(recorded.statements.filter(isBatch)).toHaveLength(1);
    for (const [i, answer] of answers.entries()) {
      expect(answer).toMatchObject({ id: profiles[i]!.id, phoneNumber: profiles[i]!.phoneNumber });
    }
    // Two with one number in the same batch, and one with a number already taken: the first
    // of the pair wins, as it would one statement after the other.
    recorded.statements.length = 0;
    const first = aProfile({ organizationId: organization.id });
    const second = aProfile({ organizationId: organization.id, phoneNumber: first.phoneNumber });
    const late = aProfile({
      organizationId: organization.id,
      phoneNumber: profiles[3]!.phoneNumber,
    });
    const fresh = aProfile({ organizationId: organization.id });
    const outcome = await Promise.all(
      [first, second, late, fresh].map((profile) => watched.profiles.insert(profile)),
    );
    expect(recorded.statements.filter(isInsert)).toHaveLength(1);
    expect(outcome.map((answer) => (answer === "phone_number_taken" ? answer : answer.id))).toEqual(
      [first.id, "phone_number_taken", "phone_number_taken", fresh.id],
    );
    const raw = postgresRawReaders(db.client, schema);
    expect(await raw.profile(second.id)).toBeNull();
    expect(await raw.profile(late.id)).toBeNull();
    expect((await raw.profile(fresh.id))?.phoneNumber).toBe(fresh.phoneNumber);
  });

  it("a batch that fails runs each insert again alone, so only the bad one fails", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const taken = aProfile({ organizationId: organization.id });
    await storage.profiles.insert(taken);
    const recorded = recording(db.client);
    const watched = postgresStorage(recorded.client, { schema });
    const good = aProfile({ organizationId: organization.id });
    // A new number under an id already stored: no ON CONFLICT covers that, so it fails.
    const bad = aProfile({ organizationId: organization.id, id: taken.id });
    const [stored, refused] = await Promise.allSettled([
      watched.profiles.insert(good),
      watched.profiles.insert(bad),
    ]);
    expect(stored).toMatchObject({ status: "fulfilled", value: { id: good.id } });
    expect(refused.status).toBe("rejected");
    expect(recorded.statements.filter(isBatch)).toHaveLength(1);
    expect(recorded.statements.filter(isInsert)).toHaveLength(3);
    const raw = postgresRawReaders(db.client, schema);
    expect((await raw.profile(good.id))?.phoneNumber).toBe(good.phoneNumber);
    expect((await raw.profile(taken.id))?.phoneNumber).toBe(taken.phoneNumber);
  });

  it("the first asked for wins a number, in a batch of any size; batches split at 100 and by organization", async () => {
    const organization = anOrganization();
    const another = anOrganization();
    await storage.organizations.insert(organization);
    await storage.organizations.insert(another);
    const recorded = recording(db.client);
    const watched = postgresStorage(recorded.client, { schema });
    // Twelve numbers in descending order, so the sort moves every row; the pair's second
    // profile is asked for last but sorts first among the rows before it.
    const profiles = Array.from({ length: 12 }, (_, i) =>
      aProfile({
        organizationId: organization.id,
        phoneNumber: `+1415555${String(99 - i).padStart(4, "0")}`,
      }),
    );
    const rival = aProfile({
      organizationId: organization.id,
      phoneNumber: profiles[2]!.phoneNumber,
    });
    const elsewhere = aProfile({
      organizationId: another.id,
      phoneNumber: profiles[2]!.phoneNumber,
    });
    const answers = await Promise.all(
      [...profiles, rival, elsewhere].map((profile) => watched.profiles.insert(profile)),
    );
    const ids = answers.map((answer) => (answer === "phone_number_taken" ? answer : answer.id));
    expect(ids).toEqual([...profiles.map((p) => p.id), "phone_number_taken", elsewhere.id]);
    // One organization's batch, and the other's single insert.
    expect(recorded.statements.filter(isBatch)).toHaveLength(1);
    expect(recorded.statements.filter(isInsert)).toHaveLength(2);

    recorded.statements.length = 0;
    const many = Array.from({ length: 101 }, () => aProfile({ organizationId: organization.id }));
    const stored = await Promise.all(many.map((profile) => watched.profiles.insert(profile)));
    expect(stored.filter((answer) => answer === "phone_number_taken")).toHaveLength(0);
    expect(recorded.statements.filter(isBatch)).toHaveLength(1);
    expect(recorded.statements.filter(isInsert)).toHaveLength(2);
  });

  // PGlite is one connection: a transaction cannot hold a number while a batch runs.
  it.skipIf(
    skippedUnless(
      serverUrl !== undefined,
      "a number held by another transaction needs a PostgreSQL server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )(
    "a number another transaction holds keeps only its own profile of a batch waiting, which then hears what a single insert would",
    async () => {
      const organization = anOrganization();
      await storage.organizations.insert(organization);
      const recorded = recording(db.client);
      const watched = postgresStorage(recorded.client, { schema });
      for (const holderEnds of ["commit", "rollback"] as const) {
        recorded.statements.length = 0;
        const held = aProfile({ organizationId: organization.id });
        let release!: () => void;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let holding!: () => void;
        const isHeld = new Promise<void>((resolve) => {
          holding = resolve;
        });
        const holder = storage
          .transaction(async (tx) => {
            await tx.profiles.insert(held);
            holding();
            await released;
            if (holderEnds === "rollback") throw new Error("the holder rolls back");
          })
          .catch(() => undefined);
        await isHeld;
        const rival = aProfile({ organizationId: organization.id, phoneNumber: held.phoneNumber });
        const others = Array.from({ length: 3 }, () =>
          aProfile({ organizationId: organization.id }),
        );
        let rivalSettled = false;
        const rivalAnswer = watched.profiles.insert(rival).finally(() => {
          rivalSettled = true;
        });
        // Asked for after the first rival: run again alone, it still comes second.
        const second = aProfile({ organizationId: organization.id, phoneNumber: held.phoneNumber });
        const secondAnswer = watched.profiles.insert(second);
        const otherAnswers = Promise.all(others.map((profile) => watched.profiles.insert(profile)));
        // Bounded: the others are answered while the number is still held, or the test fails.
        const stillWaiting = Symbol("still waiting");
        const early = await Promise.race([
          otherAnswers,
          new Promise<typeof stillWaiting>((resolve) => setTimeout(resolve, 10_000, stillWaiting)),
        ]);
        const rivalWasWaiting = !rivalSettled;
        release();
        await holder;
        expect(early).not.toBe(stillWaiting);
        expect(rivalWasWaiting).toBe(true);
        expect(
          (await otherAnswers).map((answer) => answer !== "phone_number_taken" && answer.id),
        ).toEqual(others.map((profile) => profile.id));
        const answer = await rivalAnswer;
        expect(answer === "phone_number_taken" ? answer : answer.id).toBe(
          holderEnds === "commit" ? "phone_number_taken" : rival.id,
        );
        expect(await secondAnswer).toBe("phone_number_taken");
        // They were asked for as one batch.
        expect(recorded.statements.filter(isBatch)).toHaveLength(1);
      }
    },
  );

  it("a batch stores every value as the single insert does", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const odd = aProfile({
      organizationId: organization.id,
      email: 'Zoë.O\'Brien+"x"\\@Example.COM',
      firstName: "NULL",
      lastName: 'Łukasz 🙂 {a,b} "q"',
      viberMarketingConsent: true,
      smsMarketingConsent: true,
      attributes: { plan: "pro", seats: 3, vip: true, quote: '"\\', braces: "{a,NULL}", empty: "" },
    });
    const plain = aProfile({ organizationId: organization.id });
    const [batched] = await Promise.all([
      storage.profiles.insert(odd),
      storage.profiles.insert(plain),
    ]);
    const single = aProfile({
      ...odd,
      id: `${odd.id}-alone`,
      phoneNumber: aProfile({ organizationId: organization.id }).phoneNumber,
    });
    const alone = await storage.profiles.insert(single);
    if (batched === "phone_number_taken" || alone === "phone_number_taken") {
      throw new Error("expected both profiles to be stored");
    }
    const { seq: _a, id: _b, phoneNumber: _c, ...fromBatch } = batched;
    const { seq: _d, id: _e, phoneNumber: _f, ...fromSingle } = alone;
    expect(fromBatch).toEqual(fromSingle);
    const raw = postgresRawReaders(db.client, schema);
    expect(await raw.profile(odd.id)).toMatchObject({
      email: odd.email,
      firstName: "NULL",
      lastName: odd.lastName,
      viberMarketingConsent: true,
      smsMarketingConsent: true,
      attributes: odd.attributes,
    });
  });

  it("a batch lost with its connection fails every insert of it, none run again", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const lost = new Error("Connection terminated unexpectedly");
    let batches = 0;
    let singles = 0;
    // The connection may have died before or after the COMMIT: no one can say which rows stuck.
    const dropping = new Proxy(db.client, {
      get(inner, property) {
        if (property === "query") {
          return (text: string, values?: unknown[]) => {
            if (isBatch({ text, values })) {
              batches += 1;
              return Promise.reject(lost);
            }
            if (isInsert({ text, values })) singles += 1;
            return inner.query(text, values);
          };
        }
        const value: unknown = Reflect.get(inner, property, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
    const watched = postgresStorage(dropping, { schema });
    const answers = await Promise.allSettled(
      [1, 2, 3].map(() => watched.profiles.insert(aProfile({ organizationId: organization.id }))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected", "rejected"]);
    // Each says the connection was lost, and that the insert may or may not have committed.
    for (const answer of answers) {
      const reason = answer.status === "rejected" ? answer.reason : null;
      expect(reason).toMatchObject({ name: "StorageUnavailableError", outcome: "unknown" });
      expect((reason as Error).cause).toBe(lost);
    }
    expect([batches, singles]).toEqual([1, 0]);
  });

  it("inside a transaction each insert stays a statement of its own", async () => {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const recorded = recording(db.client);
    const watched = postgresStorage(recorded.client, { schema });
    const profiles = [1, 2, 3].map(() => aProfile({ organizationId: organization.id }));
    await watched.transaction((tx) =>
      Promise.all(profiles.map((profile) => tx.profiles.insert(profile))),
    );
    expect(recorded.statements.filter(isInsert)).toHaveLength(3);
    expect(recorded.statements.filter(isBatch)).toHaveLength(0);
  });
});

describe.skipIf(
  skippedUnless(
    serverUrl !== undefined,
    "a click racing the retention sweep needs two connections of a PostgreSQL server; set TIDINGS_TEST_PG_URL to run it",
  ),
)("a tracked link's click beside the retention sweep", () => {
  it("waits for a sweep that holds its message, then finds the link gone: 404, not a deadlock", async () => {
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org);
    const code = "Rc0000000001";
    await storage.transaction((tx) =>
      tx.links.insertMany([
        {
          code,
          messageId: message.id,
          organizationId: message.organizationId,
          originalUrl: "https://shop.example/x",
          createdAt: message.createdAt,
        },
      ]),
    );
    // The sweep's order: the message locked first, then its links deleted, then the message.
    const sweep = new pg.Client({ connectionString: serverUrl });
    await sweep.connect();
    try {
      await sweep.query("BEGIN");
      await sweep.query(`SELECT id FROM "${schema}".messages WHERE id = $1 FOR UPDATE`, [
        message.id,
      ]);
      const clock = { now: () => Date.parse(at(10)) };
      const click = followLink(
        { storage, clock, ids: createIds(clock), telemetry: undefined },
        code,
        true,
      ).catch((error: unknown) => error);
      // Give the click time to reach the locked message (it must not hold the link by then).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sweep.query(`DELETE FROM "${schema}".links WHERE message_id = $1`, [message.id]);
      await sweep.query(`DELETE FROM "${schema}".message_events WHERE message_id = $1`, [
        message.id,
      ]);
      await sweep.query(`DELETE FROM "${schema}".messages WHERE id = $1`, [message.id]);
      await sweep.query("COMMIT");
      expect(await click).toMatchObject({ kind: "unknown" });
    } finally {
      await sweep.end();
    }
  });
});
