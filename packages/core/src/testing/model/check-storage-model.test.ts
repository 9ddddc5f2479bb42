import { describe, expect, it } from "vitest";
import type { Repositories } from "../../ports.js";
import type { StorageHarness } from "../contract/raw.js";
import { memoryStorage } from "../memory/memory-storage.js";
import { accountOperations } from "./account-operations.js";
import { audienceOperations } from "./audience-operations.js";
import { checkAgainstReference } from "./check-storage-model.js";
import { deliveryOperations } from "./delivery-operations.js";
import { limitOperations } from "./limit-operations.js";
import { messageOperations } from "./message-operations.js";
import { profileOperations } from "./profile-operations.js";

/** A memory storage as the subject, with some repositories replaced by faulty ones. */
const harnessWith =
  (fault: (repos: Repositories) => Partial<Repositories> = () => ({})) =>
  async (): Promise<StorageHarness> => {
    const storage = memoryStorage();
    return {
      storage: { ...storage, ...fault(storage) },
      raw: storage.raw,
      dispose: () => storage.close(),
    };
  };

const quiet = { numRuns: 40 };

describe("the storage model", () => {
  it("finds no difference between the reference and another reference", async () => {
    await checkAgainstReference(
      harnessWith(),
      [
        ...profileOperations,
        ...audienceOperations,
        ...accountOperations,
        ...messageOperations,
        ...deliveryOperations,
        ...limitOperations,
      ],
      quiet,
    );
  });

  it("catches an adapter whose email lookup is case-sensitive", async () => {
    const caseSensitive = harnessWith((repos) => ({
      profiles: {
        ...repos.profiles,
        findByEmail: async (organizationId, email, limit) =>
          (await repos.profiles.findByEmail(organizationId, email, limit)).filter(
            (p) => p.email === email,
          ),
      },
    }));
    await expect(checkAgainstReference(caseSensitive, profileOperations, quiet)).rejects.toThrow(
      /findByEmail/,
    );
  });

  it("catches an adapter that ignores the cursor of a list page", async () => {
    const noCursor = harnessWith((repos) => ({
      profiles: {
        ...repos.profiles,
        list: (query) => repos.profiles.list({ ...query, afterSeq: undefined }),
      },
    }));
    await expect(checkAgainstReference(noCursor, profileOperations, quiet)).rejects.toThrow(
      /profiles\.list/,
    );
  });

  it("catches an adapter whose transactions do not roll back", async () => {
    const noRollback = async (): Promise<StorageHarness> => {
      const storage = memoryStorage();
      return {
        storage: { ...storage, transaction: (fn) => fn(storage) },
        raw: storage.raw,
        dispose: () => storage.close(),
      };
    };
    await expect(checkAgainstReference(noRollback, audienceOperations, quiet)).rejects.toThrow(
      /rolled back|rolled-back/,
    );
  });

  it("catches an adapter that claims a leased delivery again", async () => {
    const doubleClaim = harnessWith((repos) => ({
      deliveries: {
        ...repos.deliveries,
        claimDue: (now, limit, owner, _leaseMs, options) =>
          repos.deliveries.claimDue(now, limit, owner, 0, options),
      },
    }));
    await expect(checkAgainstReference(doubleClaim, deliveryOperations, quiet)).rejects.toThrow(
      /claimDue/,
    );
  });

  it("catches an adapter whose idempotency records outlive a release", async () => {
    const noRelease = harnessWith((repos) => ({
      idempotency: { ...repos.idempotency, release: async () => undefined },
    }));
    await expect(checkAgainstReference(noRelease, limitOperations, quiet)).rejects.toThrow(
      /idempotency/,
    );
  });
});
