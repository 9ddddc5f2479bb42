import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../deps.js";
import { withIdempotency } from "../../idempotency/with-idempotency.js";
import type { IdempotencyRecord } from "../../ports.js";
import { manualClock } from "../../support/clock.js";
import { anIdempotencyRecord, at, T0 } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedMessage, seedOrganization } from "./seed.js";

const RESPONSE = {
  status: 202,
  body: '{"message_id":"x"}',
  headers: { "content-type": "application/json" },
};

const STARTED = { outcome: "started" } as const;

/** Where a record is kept (API key, endpoint, key), as the repository's methods take it. */
const holderOf = (record: IdempotencyRecord) =>
  [record.apiKeyId, record.endpoint, record.key] as const;

/** A fresh organization's record with `overrides`, begun at `at(1)`. */
async function begun(harness: () => StorageHarness, overrides: Partial<IdempotencyRecord> = {}) {
  const { storage, raw } = harness();
  const { apiKey } = await seedOrganization(storage);
  const record = anIdempotencyRecord({ apiKeyId: apiKey.id, ...overrides });
  await storage.idempotency.begin(record, at(1));
  return { storage, raw, record, holder: holderOf(record) };
}

/** Idempotency records. */
export function idempotencyContract(harness: () => StorageHarness): void {
  describe("idempotency", () => {
    it("begin stores a new record and answers started", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      expect(await storage.idempotency.begin(record, at(1))).toEqual(STARTED);
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toEqual(record);
    });

    it("begin answers the existing live record and writes nothing", async () => {
      const { storage, raw, record, holder } = await begun(harness);
      const again = {
        ...record,
        requestHash: "sha256:other",
        lockedUntil: at(62),
        createdAt: at(2),
        expiresAt: at(90_000),
      };
      expect(await storage.idempotency.begin(again, at(2))).toEqual({ outcome: "exists", record });
      expect(await raw.idempotency(...holder)).toEqual(record);
    });

    it("records are scoped by API key, endpoint and key", async () => {
      const { storage } = harness();
      const { apiKey } = await seedOrganization(storage);
      const { apiKey: otherKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id, key: "k1" });
      await storage.idempotency.begin(record, at(1));
      expect(await storage.idempotency.begin({ ...record, apiKeyId: otherKey.id }, at(1))).toEqual(
        STARTED,
      );
      expect(
        await storage.idempotency.begin({ ...record, endpoint: "POST /v1/profiles" }, at(1)),
      ).toEqual(STARTED);
      expect(await storage.idempotency.begin({ ...record, key: "k2" }, at(1))).toEqual(STARTED);
    });

    it("complete stores the response and ends the lock; a later begin answers the completed record", async () => {
      const { storage, raw, record, holder } = await begun(harness);
      await storage.idempotency.complete(...holder, record.lockedUntil ?? "", RESPONSE);
      const completed = {
        ...record,
        state: "completed" as const,
        response: RESPONSE,
        lockedUntil: null,
      };
      expect(await raw.idempotency(...holder)).toEqual(completed);
      // A completed record is never resumed, however late the retry.
      expect(await storage.idempotency.begin(record, at(3_600))).toEqual({
        outcome: "exists",
        record: completed,
      });
    });

    it("release forgets the record, so the key can start again", async () => {
      const { storage, raw, record, holder } = await begun(harness);
      await storage.idempotency.release(...holder, record.lockedUntil ?? "");
      expect(await raw.idempotency(...holder)).toBeNull();
      expect(await storage.idempotency.begin(record, at(2))).toEqual(STARTED);
    });

    it("an expired record is replaced by the new one", async () => {
      const { storage, raw, record, holder } = await begun(harness, { expiresAt: at(100) });
      await storage.idempotency.complete(...holder, record.lockedUntil ?? "", RESPONSE);
      expect(
        (await storage.idempotency.begin({ ...record, createdAt: at(99) }, at(99.999))).outcome,
      ).toBe("exists");
      const fresh = {
        ...record,
        requestHash: "sha256:new",
        lockedUntil: at(160),
        createdAt: at(100),
        expiresAt: at(200),
      };
      expect(await storage.idempotency.begin(fresh, at(100))).toEqual(STARTED);
      expect(await raw.idempotency(...holder)).toEqual(fresh);
    });

    it("an in-progress record whose lock ended is resumed by a begin of the same body, keeping its recovery point", async () => {
      const { storage, raw, record, holder } = await begun(harness, { lockedUntil: at(60) });
      expect(await storage.idempotency.markRecoveryPoint(...holder, at(60), "message:m1")).toBe(
        true,
      );
      const retry = { ...record, lockedUntil: at(120), createdAt: at(60) };
      // Still locked: the first request may be running.
      const marked = { ...record, recoveryPoint: "message:m1" };
      expect(await storage.idempotency.begin(retry, at(59.999))).toEqual({
        outcome: "exists",
        record: marked,
      });
      // Another body never resumes it.
      expect(
        await storage.idempotency.begin({ ...retry, requestHash: "sha256:other" }, at(60)),
      ).toEqual({ outcome: "exists", record: marked });
      const resumed = { ...marked, lockedUntil: at(120) };
      expect(await storage.idempotency.begin(retry, at(60))).toEqual({
        outcome: "resumed",
        record: resumed,
      });
      expect(await raw.idempotency(...holder)).toEqual(resumed);
    });

    it("only the holder's token marks, completes or releases: a taken-over request changes nothing", async () => {
      const { storage, raw, record, holder } = await begun(harness, { lockedUntil: at(60) });
      await storage.idempotency.begin({ ...record, lockedUntil: at(120) }, at(61));
      const stale = at(60);
      expect(await storage.idempotency.markRecoveryPoint(...holder, stale, "message:x")).toBe(
        false,
      );
      await storage.idempotency.complete(...holder, stale, RESPONSE);
      await storage.idempotency.release(...holder, stale);
      expect(await raw.idempotency(...holder)).toEqual({ ...record, lockedUntil: at(120) });
    });

    // Through the core, so each storage's own way of marking runs: an answer checked at once,
    // or (PostgreSQL) a guarded write sent with COMMIT that fails the whole transaction.
    it("a request that ran past its lock commits none of its work once a retry resumed its key", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const deps = { storage, clock: manualClock(T0), config: defaultConfig };
      const request = {
        apiKeyId: apiKey.id,
        endpoint: "POST /v1/messages/send",
        key: "late-request",
        requestBody: { pin: 1 },
      };
      // A write of the late request's work, in the transaction its checkpoint is in.
      const work = anIdempotencyRecord({ apiKeyId: apiKey.id, key: "written-by-the-late-one" });
      let entered: () => void = () => undefined;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let proceed: () => void = () => undefined;
      const resumed = new Promise<void>((resolve) => {
        proceed = resolve;
      });
      const late = withIdempotency(deps, request, async (checkpoint) => {
        entered();
        await resumed;
        await storage.transaction(async (tx) => {
          await tx.idempotency.begin(work, at(0));
          await checkpoint(tx, "message:late");
        });
        return { status: 202, body: '{"late":true}', headers: {} };
      });
      await inside;
      deps.clock.advance(defaultConfig.idempotencyLockMs);
      const retry = await withIdempotency(deps, request, async () => RESPONSE);
      expect(retry._unsafeUnwrap()).toEqual({ response: RESPONSE, replayed: false });
      proceed();
      expect((await late)._unsafeUnwrapErr()).toMatchObject({ code: "idempotency_in_progress" });
      expect(await raw.idempotency(...holderOf(work))).toBeNull();
      const again = await withIdempotency(deps, request, async () => RESPONSE);
      expect(again._unsafeUnwrap()).toEqual({ response: RESPONSE, replayed: true });
      const record = await raw.idempotency(...holderOf({ ...work, key: request.key }));
      expect(record?.recoveryPoint).toBeNull();
    });

    // On PostgreSQL the failing write and the mark both go out with COMMIT: the mark is asked
    // for, but the transaction fails before it commits, so nothing holds the key.
    it("a request whose work fails before it commits releases its key, so a retry runs at once", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const deps = { storage, clock: manualClock(T0), config: defaultConfig };
      const request = {
        apiKeyId: org.apiKey.id,
        endpoint: "POST /v1/messages/send",
        key: "fails-before-commit",
        requestBody: { pin: 2 },
      };
      const failed = withIdempotency(deps, request, async (checkpoint) => {
        await storage.transaction(async (tx) => {
          // The same message id again: refused by every storage, at COMMIT at the latest.
          await tx.messages.insert(message);
          await checkpoint(tx, `message:${message.id}`);
        });
        return RESPONSE;
      });
      await expect(failed).rejects.toThrow();
      const retry = await withIdempotency(deps, request, async () => RESPONSE);
      expect(retry._unsafeUnwrap()).toEqual({ response: RESPONSE, replayed: false });
    });

    it("concurrent begins of the same key: exactly one starts", async () => {
      const { storage } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => storage.idempotency.begin(record, at(1))),
      );
      expect(answers.filter((a) => a.outcome === "started")).toHaveLength(1);
      expect(answers.filter((a) => a.outcome !== "started")).toEqual(
        Array(19).fill({ outcome: "exists", record }),
      );
    });

    it("concurrent retries of an abandoned request: exactly one resumes it", async () => {
      const { storage, record } = await begun(harness, { lockedUntil: at(60) });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          storage.idempotency.begin({ ...record, lockedUntil: at(120 + i) }, at(61)),
        ),
      );
      expect(answers.filter((a) => a.outcome === "resumed")).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === "exists")).toHaveLength(19);
    });
  });
}
