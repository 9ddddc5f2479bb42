import { describe, expect, it } from "vitest";
import type { Storage } from "../ports.js";
import { anOrganization, aWebhook } from "../testing/contract/fixtures.js";
import { memoryStorage } from "../testing/memory/index.js";
import { cachingSubscriptions } from "./subscription-cache.js";

/** Memory storage with an organization, counting the subscription lists that reach it. */
async function subscriptionStore() {
  const inner = memoryStorage();
  const org = anOrganization();
  await inner.organizations.insert(org);
  const reads: string[] = [];
  const counting = (webhooks: Storage["webhooks"]): Storage["webhooks"] => ({
    ...webhooks,
    list: (organizationId) => {
      reads.push(organizationId);
      return webhooks.list(organizationId);
    },
  });
  const storage: Storage = {
    ...inner,
    webhooks: counting(inner.webhooks),
    transaction: (fn) => inner.transaction((tx) => fn({ ...tx, webhooks: counting(tx.webhooks) })),
  };
  return { inner, storage, org, reads };
}

describe("cachingSubscriptions", () => {
  it("keeps an organization's list, empty or not, once trusted; a change through it is seen at once", async () => {
    const { storage, org, reads } = await subscriptionStore();
    const cache = cachingSubscriptions(storage);
    cache.trust(true);
    expect(await cache.storage.webhooks.list(org.id)).toEqual([]);
    expect(await cache.storage.webhooks.list(org.id)).toEqual([]);
    expect(reads).toHaveLength(1);
    const hook = aWebhook({ organizationId: org.id });
    await cache.storage.transaction(async (tx) => {
      await tx.webhooks.lockOrganization(org.id);
      await tx.webhooks.list(org.id);
      await tx.webhooks.insert(hook);
    });
    expect((await cache.storage.webhooks.list(org.id)).map((s) => s.id)).toEqual([hook.id]);
    await cache.storage.webhooks.update(org.id, hook.id, {
      status: "inactive",
      updatedAt: hook.updatedAt,
    });
    expect((await cache.storage.webhooks.list(org.id))[0]?.status).toBe("inactive");
    await cache.storage.webhooks.delete(org.id, hook.id);
    expect(await cache.storage.webhooks.list(org.id)).toEqual([]);
    // The list read under the lock went to the database, as every one after a change.
    expect(reads).toHaveLength(5);
  });

  it("a transaction reads from memory until it locks the organization's subscriptions", async () => {
    const { inner, storage, org, reads } = await subscriptionStore();
    const cache = cachingSubscriptions(storage);
    cache.trust(true);
    await cache.storage.webhooks.list(org.id);
    // Added behind its back, as another process would: memory keeps the old list…
    await inner.webhooks.insert(aWebhook({ organizationId: org.id }));
    const seen = await cache.storage.transaction(async (tx) => {
      const before = await tx.webhooks.list(org.id);
      await tx.webhooks.lockOrganization(org.id);
      const after = await tx.webhooks.list(org.id);
      return [before.length, after.length];
    });
    // …until the transaction locks: then it decides on what is committed.
    expect(seen).toEqual([0, 1]);
    expect(reads).toHaveLength(2);
    // And the notice makes everyone read it afresh.
    cache.forget(org.id);
    expect(await cache.storage.webhooks.list(org.id)).toHaveLength(1);
    expect(reads).toHaveLength(3);
  });

  it("keeps nothing while not trusted, and hands out frozen lists", async () => {
    const { storage, org, reads } = await subscriptionStore();
    const cache = cachingSubscriptions(storage);
    await cache.storage.webhooks.list(org.id);
    await cache.storage.webhooks.list(org.id);
    expect(reads).toHaveLength(2);
    cache.trust(true);
    await cache.storage.webhooks.list(org.id);
    expect(Object.isFrozen(await cache.storage.webhooks.list(org.id))).toBe(true);
    expect(reads).toHaveLength(3);
  });
});
