import { describe, expect, it } from "vitest";
import { anIdempotencyRecord, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedOrganization } from "./seed.js";

const RESPONSE = {
  status: 202,
  body: '{"message_id":"x"}',
  headers: { "content-type": "application/json" },
};

/** Idempotency records. */
export function idempotencyContract(harness: () => StorageHarness): void {
  describe("idempotency", () => {
    it("begin stores a new record and answers started", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      expect(await storage.idempotency.begin(record, at(1))).toBe("started");
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toEqual(record);
    });

    it("begin answers the existing unexpired record and writes nothing", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      await storage.idempotency.begin(record, at(1));
      const again = {
        ...record,
        requestHash: "sha256:other",
        createdAt: at(2),
        expiresAt: at(90_000),
      };
      expect(await storage.idempotency.begin(again, at(2))).toEqual(record);
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toEqual(record);
    });

    it("records are scoped by API key, endpoint and key", async () => {
      const { storage } = harness();
      const { apiKey } = await seedOrganization(storage);
      const { apiKey: otherKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id, key: "k1" });
      await storage.idempotency.begin(record, at(1));
      expect(await storage.idempotency.begin({ ...record, apiKeyId: otherKey.id }, at(1))).toBe(
        "started",
      );
      expect(
        await storage.idempotency.begin({ ...record, endpoint: "POST /v1/profiles" }, at(1)),
      ).toBe("started");
      expect(await storage.idempotency.begin({ ...record, key: "k2" }, at(1))).toBe("started");
    });

    it("complete stores the response; a later begin answers the completed record", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      await storage.idempotency.begin(record, at(1));
      await storage.idempotency.complete(apiKey.id, record.endpoint, record.key, RESPONSE);
      const completed = { ...record, state: "completed" as const, response: RESPONSE };
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toEqual(completed);
      expect(await storage.idempotency.begin(record, at(2))).toEqual(completed);
    });

    it("release forgets the record, so the key can start again", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      await storage.idempotency.begin(record, at(1));
      await storage.idempotency.release(apiKey.id, record.endpoint, record.key);
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toBeNull();
      expect(await storage.idempotency.begin(record, at(2))).toBe("started");
    });

    it("an expired record is replaced by the new one", async () => {
      const { storage, raw } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id, expiresAt: at(100) });
      await storage.idempotency.begin(record, at(1));
      await storage.idempotency.complete(apiKey.id, record.endpoint, record.key, RESPONSE);
      expect(
        await storage.idempotency.begin({ ...record, createdAt: at(99) }, at(99.999)),
      ).not.toBe("started");
      const fresh = {
        ...record,
        requestHash: "sha256:new",
        createdAt: at(100),
        expiresAt: at(200),
      };
      expect(await storage.idempotency.begin(fresh, at(100))).toBe("started");
      expect(await raw.idempotency(apiKey.id, record.endpoint, record.key)).toEqual(fresh);
    });

    it("concurrent begins of the same key: exactly one starts", async () => {
      const { storage } = harness();
      const { apiKey } = await seedOrganization(storage);
      const record = anIdempotencyRecord({ apiKeyId: apiKey.id });
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => storage.idempotency.begin(record, at(1))),
      );
      expect(answers.filter((a) => a === "started")).toHaveLength(1);
      expect(answers.filter((a) => a !== "started")).toEqual(Array(19).fill(record));
    });
  });
}
