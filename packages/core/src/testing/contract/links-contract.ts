import { describe, expect, it } from "vitest";
import type { NewLink } from "../../ports.js";
import { at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedMessage, seedOrganization } from "./seed.js";

let counter = 0;
/** A distinct 12-character code per link. */
const aCode = (): string => {
  counter += 1;
  return `c${String(counter).padStart(11, "0")}`;
};

const linksOf = (
  message: { id: string; organizationId: string; createdAt: string },
  urls: string[],
): NewLink[] =>
  urls.map((originalUrl) => ({
    code: aCode(),
    messageId: message.id,
    organizationId: message.organizationId,
    originalUrl,
    createdAt: message.createdAt,
  }));

/** Tracked links: stored with a send, read by code and by message, clicks counted atomically. */
export function linksContract(harness: () => StorageHarness): void {
  describe("links", () => {
    it("insertMany stores every link unclicked, inside the send's transaction", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const links = linksOf(message, ["https://a.example/x?t=1", "http://b.example/"]);
      await storage.transaction(async (tx) => tx.links.insertMany(links));
      for (const link of links) {
        expect(await storage.links.get(link.code)).toEqual({
          ...link,
          clicks: 0,
          firstClickedAt: null,
          lastClickedAt: null,
        });
      }
      const listed = await storage.links.listForMessage(message.organizationId, message.id);
      expect(listed.map((link) => link.code).sort()).toEqual(links.map((l) => l.code).sort());
      expect(await storage.links.get(aCode())).toBeNull();
    });

    it("a rolled-back send leaves no link", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const [link] = linksOf(message, ["https://a.example/"]);
      if (link === undefined) throw new Error("no link");
      await expect(
        storage.transaction(async (tx) => {
          await tx.links.insertMany([link]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.links.get(link.code)).toBeNull();
    });

    it("a code already taken refuses the whole call: none of its links is stored", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const [taken, fresh] = linksOf(message, ["https://a.example/", "https://b.example/"]);
      if (taken === undefined || fresh === undefined) throw new Error("no links");
      await storage.links.insertMany([taken]);
      await expect(
        storage.links.insertMany([fresh, { ...taken, originalUrl: "https://evil.example/" }]),
      ).rejects.toThrow();
      expect(await storage.links.get(fresh.code)).toBeNull();
      expect((await storage.links.get(taken.code))?.originalUrl).toBe("https://a.example/");
    });

    it("lists a message's links only for its own organization", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const other = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const { message: theirs } = await seedMessage(storage, other);
      await storage.links.insertMany(linksOf(message, ["https://a.example/"]));
      await storage.links.insertMany(linksOf(theirs, ["https://b.example/"]));
      expect(await storage.links.listForMessage(other.organization.id, message.id)).toEqual([]);
      const both = await storage.links.listForMessages(message.organizationId, [
        message.id,
        theirs.id,
      ]);
      expect(both.map((link) => link.originalUrl)).toEqual(["https://a.example/"]);
      expect(await storage.links.listForMessages(message.organizationId, [])).toEqual([]);
    });

    it("recordClick counts each click, keeps the first time and moves the last", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const [link] = linksOf(message, ["https://a.example/"]);
      if (link === undefined) throw new Error("no link");
      await storage.links.insertMany([link]);
      expect(await storage.links.recordClick(link.code, at(5))).toMatchObject({
        clicks: 1,
        firstClickedAt: at(5),
        lastClickedAt: at(5),
      });
      expect(await storage.links.recordClick(link.code, at(9))).toMatchObject({
        clicks: 2,
        firstClickedAt: at(5),
        lastClickedAt: at(9),
      });
      expect(await storage.links.recordClick(aCode(), at(9))).toBeNull();
    });

    it("concurrent clicks are each counted", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const [link] = linksOf(message, ["https://a.example/"]);
      if (link === undefined) throw new Error("no link");
      await storage.links.insertMany([link]);
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => storage.links.recordClick(link.code, at(i))),
      );
      expect((await storage.links.get(link.code))?.clicks).toBe(10);
    });

    it("retention deletes a message's links with it", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, {
        status: "delivered",
        createdAt: at(1),
        expiresAt: at(2),
      });
      const links = linksOf(message, ["https://a.example/", "https://b.example/"]);
      await storage.links.insertMany(links);
      const query = { createdBefore: at(100), now: at(1000), after: null, limit: 50 };
      expect((await storage.retention.deleteOldMessages(query)).deleted).toBe(1);
      for (const link of links) expect(await storage.links.get(link.code)).toBeNull();
    });
  });
}
