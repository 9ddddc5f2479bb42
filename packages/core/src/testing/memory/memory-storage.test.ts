import { describe, expect, it } from "vitest";
import {
  aContactList,
  aDelivery,
  aMembership,
  anOrganization,
  aProfile,
} from "../contract/fixtures.js";
import { seedMessage, seedOrganization } from "../contract/seed.js";
import { memoryRawReaders, memoryStorage } from "./index.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("memoryStorage: failure injection", () => {
  it("failNext makes the next call of that method reject, once", async () => {
    const storage = memoryStorage();
    const org = anOrganization();
    const boom = new Error("disk full");
    storage.failNext("organizations.insert", boom);
    await expect(storage.organizations.insert(org)).rejects.toBe(boom);
    expect(await storage.organizations.get(org.id)).toBeNull();
    await storage.organizations.insert(org);
    expect(await storage.organizations.get(org.id)).toEqual(org);
  });

  it("a failure in the middle of a transaction loses nothing already committed and writes nothing new", async () => {
    const storage = memoryStorage();
    const org = await seedOrganization(storage);
    storage.failNext("deliveries.insert");
    let messageId = "";
    await expect(
      storage.transaction(async (tx) => {
        messageId = (await seedMessage(tx, org)).message.id;
        await tx.deliveries.insert(
          aDelivery({
            organizationId: org.organization.id,
            eventId: "01890000-0000-7000-8000-000000000002",
            messageId,
            destination: { kind: "message", url: "https://example.com", apiKeyId: org.apiKey.id },
          }),
        );
      }),
    ).rejects.toThrow("injected failure: deliveries.insert");
    expect(await storage.raw.message(messageId)).toBeNull();
    expect(await storage.raw.events(messageId)).toEqual([]);
    expect(await storage.raw.deliveries()).toEqual([]);
    expect(await storage.raw.profile(org.profile.id)).toEqual(org.profile);
  });
});

describe("memoryStorage: serialization", () => {
  it("a second transaction waits until the first one settles", async () => {
    const storage = memoryStorage();
    const order: string[] = [];
    let release = (): void => undefined;
    const first = storage.transaction(async () => {
      order.push("first:start");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      order.push("first:end");
    });
    const second = storage.transaction(async () => {
      order.push("second:start");
    });
    await tick();
    expect(order).toEqual(["first:start"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first:start", "first:end", "second:start"]);
  });

  it("a write outside a transaction waits for the open transaction; a read does not", async () => {
    const storage = memoryStorage();
    const org = anOrganization();
    await storage.organizations.insert(org);
    let release = (): void => undefined;
    const tx = storage.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const profile = aProfile({ organizationId: org.id });
    let written = false;
    const write = storage.profiles.insert(profile).then(() => {
      written = true;
    });
    expect(await storage.organizations.get(org.id)).toEqual(org);
    await tick();
    expect(written).toBe(false);
    release();
    await Promise.all([tx, write]);
    expect(written).toBe(true);
  });
});

describe("memoryStorage: isolation of stored state", () => {
  it("repositories of a finished transaction refuse to work", async () => {
    const storage = memoryStorage();
    const org = anOrganization();
    const kept = await storage.transaction(async (tx) => tx);
    await expect(kept.organizations.insert(org)).rejects.toThrow("transaction is over");
    expect(await storage.organizations.get(org.id)).toBeNull();
  });

  it("raw readers return copies too", async () => {
    const storage = memoryStorage();
    const org = anOrganization();
    await storage.organizations.insert(org);
    const profile = aProfile({ organizationId: org.id });
    await storage.profiles.insert(profile);
    const list = aContactList({ organizationId: org.id });
    await storage.contactLists.insert(list);
    await storage.contactLists.addMember(
      aMembership({ organizationId: org.id, listId: list.id, profileId: profile.id }),
    );
    const raw = memoryRawReaders(storage);
    const read = await raw.memberships(profile.id);
    read.pop();
    expect(await raw.memberships(profile.id)).toHaveLength(1);
  });
});

describe("memoryStorage: lifecycle", () => {
  it("ping resolves while open; after close every call rejects", async () => {
    const storage = memoryStorage();
    await expect(storage.ping()).resolves.toBeUndefined();
    await storage.close();
    await expect(storage.ping()).rejects.toThrow("closed");
    await expect(storage.organizations.get("org_x")).rejects.toThrow("closed");
    await expect(storage.transaction(async () => 1)).rejects.toThrow("closed");
  });
});
