import { err, ok } from "neverthrow";
import { describe, expect, it } from "vitest";
import type { Repositories, Storage } from "../../ports.js";
import {
  aConsentChange,
  aContactList,
  aMembership,
  anIdempotencyRecord,
  aProfile,
  at,
} from "./fixtures.js";
import { insertProfile } from "./profiles-contract.js";
import type { RawReaders, StorageHarness } from "./raw.js";
import { anOrganizationIn, seedDelivery, seedMessage, seedOrganization } from "./seed.js";

/** A promise with its resolver outside, to hold a transaction open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A write to every kind of record, and the check that none of it was kept. */
async function manyWrites(storage: Storage) {
  const org = await seedOrganization(storage);
  const organizationId = org.organization.id;
  const profile = aProfile({ organizationId });
  const list = aContactList({ organizationId });
  const idem = anIdempotencyRecord({ apiKeyId: org.apiKey.id });
  let messageId = "";
  let deliveryId = "";
  return {
    organizationId,
    async write(tx: Repositories): Promise<void> {
      await tx.profiles.insert(profile);
      await tx.consent.insert(aConsentChange({ organizationId, profileId: profile.id }));
      await tx.contactLists.insert(list);
      messageId = (await seedMessage(tx, org)).message.id;
      deliveryId = (await seedDelivery(tx, org)).id;
      await tx.idempotency.begin(idem, at(1));
      await tx.apiKeys.revoke(org.apiKey.id, at(1));
    },
    async expectNone(raw: RawReaders, storage: Storage): Promise<void> {
      expect(await raw.profile(profile.id)).toBeNull();
      expect(await raw.consentChanges(profile.id)).toEqual([]);
      expect(await storage.contactLists.get(organizationId, list.id)).toBeNull();
      expect(await raw.message(messageId)).toBeNull();
      expect(await raw.events(messageId)).toEqual([]);
      expect(await raw.delivery(deliveryId)).toBeNull();
      expect(await raw.idempotency(idem.apiKeyId, idem.endpoint, idem.key)).toBeNull();
      expect(await raw.apiKey(org.apiKey.id)).toEqual(org.apiKey);
    },
  };
}

/** `storage.transaction`: commit, rollback, isolation and serialization. */
export function transactionsContract(harness: () => StorageHarness): void {
  describe("transaction", () => {
    it("commits every write of fn together and resolves with fn's value", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const organizationId = org.organization.id;
      const profile = aProfile({ organizationId });
      const list = aContactList({ organizationId });
      const value = await storage.transaction(async (tx) => {
        await tx.profiles.insert(profile);
        await tx.contactLists.insert(list);
        await tx.contactLists.addMember(
          aMembership({ organizationId, listId: list.id, profileId: profile.id }),
        );
        // Reads inside the transaction see its own writes.
        return (await tx.profiles.get(organizationId, profile.id))?.id;
      });
      expect(value).toBe(profile.id);
      expect((await raw.profile(profile.id))?.status).toBe("active");
      expect(await raw.memberships(profile.id)).toHaveLength(1);
    });

    it("writes nothing when fn rejects, and rejects with fn's error", async () => {
      const { storage, raw } = harness();
      const writes = await manyWrites(storage);
      const boom = new Error("boom");
      await expect(
        storage.transaction(async (tx) => {
          await writes.write(tx);
          throw boom;
        }),
      ).rejects.toBe(boom);
      await writes.expectNone(raw, storage);
    });

    it("writes nothing when fn resolves to an error Result, and resolves with that Result", async () => {
      const { storage, raw } = harness();
      const writes = await manyWrites(storage);
      const refusal = { type: "conflict", code: "refused after writing" } as const;
      const result = await storage.transaction(async (tx) => {
        await writes.write(tx);
        return writes.organizationId === "" ? ok(undefined) : err(refusal);
      });
      expect(result.isErr() && result.error).toBe(refusal);
      await writes.expectNone(raw, storage);
    });

    it("commits the writes of fn when it resolves to an ok Result", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = aProfile({ organizationId });
      const result = await storage.transaction(async (tx) => {
        await tx.profiles.insert(profile);
        return ok(profile.id);
      });
      expect(result.isOk() && result.value).toBe(profile.id);
      expect((await raw.profile(profile.id))?.id).toBe(profile.id);
    });

    it("after an error Result rolled back, the next transaction commits", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const dropped = aProfile({ organizationId });
      const kept = aProfile({ organizationId, phoneNumber: dropped.phoneNumber });
      await storage.transaction(async (tx) => {
        await tx.profiles.insert(dropped);
        return err("no");
      });
      // The same phone number is free again: the first insert left no trace.
      await storage.transaction(async (tx) => tx.profiles.insert(kept));
      expect(await raw.profile(dropped.id)).toBeNull();
      expect((await raw.profile(kept.id))?.id).toBe(kept.id);
    });

    it("a rolled-back soft delete leaves the profile active and its memberships in place", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = await insertProfile(storage, aProfile({ organizationId }));
      const list = aContactList({ organizationId });
      await storage.contactLists.insert(list);
      await storage.contactLists.addMember(
        aMembership({ organizationId, listId: list.id, profileId: profile.id }),
      );
      await expect(
        storage.transaction(async (tx) => {
          await tx.profiles.softDelete(organizationId, profile.id, at(5));
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await raw.profile(profile.id)).toEqual(profile);
      expect(await raw.memberships(profile.id)).toHaveLength(1);
    });

    it("storage stays usable after a rollback", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      await expect(
        storage.transaction(async () => Promise.reject(new Error("no"))),
      ).rejects.toThrow("no");
      const profile = aProfile({ organizationId });
      await storage.transaction(async (tx) => tx.profiles.insert(profile));
      await insertProfile(storage, aProfile({ organizationId }));
      expect((await raw.profile(profile.id))?.id).toBe(profile.id);
    });

    it("a reader outside the transaction never sees its uncommitted writes", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = aProfile({ organizationId });
      const written = gate();
      const commit = gate();
      let commitAllowed = false;
      const done = storage.transaction(async (tx) => {
        await tx.profiles.insert(profile);
        written.open();
        await commit.promise;
      });
      await written.promise;
      // The read may wait for the commit (a single connection) or answer at once (isolation).
      const read = storage.profiles
        .get(organizationId, profile.id)
        .then((found) => ({ found, beforeCommit: !commitAllowed }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      commitAllowed = true;
      commit.open();
      await done;
      const { found, beforeCommit } = await read;
      if (beforeCommit) expect(found).toBeNull();
      expect((await storage.profiles.get(organizationId, profile.id))?.id).toBe(profile.id);
    });

    it("20 concurrent read-modify-write transactions under lockOrganization lose no update", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const organizationId = org.organization.id;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          storage.transaction(async (tx) => {
            await tx.webhooks.lockOrganization(organizationId);
            const campaign = await tx.campaigns.get(organizationId, org.campaign.id);
            if (campaign === null) throw new Error("campaign vanished");
            await tx.campaigns.update({
              ...campaign,
              ttlSeconds: campaign.ttlSeconds + 1,
              updatedAt: at(i),
            });
          }),
        ),
      );
      expect((await raw.campaign(org.campaign.id))?.ttlSeconds).toBe(org.campaign.ttlSeconds + 20);
    });

    it("concurrent transactions that fail leave the successful ones intact", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profiles = Array.from({ length: 10 }, () => aProfile({ organizationId }));
      const results = await Promise.allSettled(
        profiles.map((profile, i) =>
          storage.transaction(async (tx) => {
            await tx.profiles.insert(profile);
            if (i % 2 === 1) throw new Error(`abort ${i}`);
          }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
      for (const [i, profile] of profiles.entries()) {
        expect((await raw.profile(profile.id)) !== null).toBe(i % 2 === 0);
      }
    });
  });
}
