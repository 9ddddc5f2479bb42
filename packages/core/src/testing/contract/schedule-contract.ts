import { describe, expect, it } from "vitest";
import { aCampaign, aProfile, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedMessage, seedOrganization } from "./seed.js";

/** Sending windows, profiles' time zones and held messages: stored, listed when due, moved. */
export function scheduleContract(harness: () => StorageHarness): void {
  describe("sending windows and scheduled messages", () => {
    it("keeps a campaign's sending window and a profile's time zone as written", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const organizationId = org.organization.id;
      const campaign = aCampaign({
        organizationId,
        sendingWindow: {
          days: ["mon", "sat"],
          start: "09:00",
          end: "24:00",
          skipPublicHolidays: true,
        },
      });
      await storage.campaigns.insert(campaign);
      expect(await raw.campaign(campaign.id)).toEqual(campaign);
      const changed = { ...campaign, sendingWindow: null, updatedAt: at(5) };
      expect(await storage.campaigns.update(changed)).toBe(true);
      expect(await raw.campaign(campaign.id)).toEqual(changed);

      const profile = await storage.profiles.insert(
        aProfile({ organizationId, timeZone: "America/Chicago" }),
      );
      if (profile === "phone_number_taken") throw new Error("taken");
      expect((await raw.profile(profile.id))?.timeZone).toBe("America/Chicago");
      expect(await storage.profiles.update({ ...profile, timeZone: null, updatedAt: at(6) })).toBe(
        true,
      );
      expect((await raw.profile(profile.id))?.timeZone).toBeNull();
    });

    it("lists held messages due by release time and moves each once, with its expiry", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const held = (seconds: number) =>
        seedMessage(storage, org, { status: "scheduled", scheduledFor: at(seconds) });
      const { message: later } = await held(30);
      const { message: first } = await held(10);
      const { message: second } = await held(20);
      await seedMessage(storage, org, { status: "sent", scheduledFor: at(5) });

      expect(await storage.messages.listScheduledDue("scheduled", at(20), 10)).toEqual([
        first.id,
        second.id,
      ]);
      expect(await storage.messages.listScheduledDue("scheduled", at(25), 1)).toEqual([first.id]);
      expect(await storage.messages.listScheduledDue("releasing", at(60), 10)).toEqual([]);

      // scheduled → releasing: one of two racing writers wins; the TTL restarts.
      const moves = await Promise.all(
        [0, 1].map(() =>
          storage.messages.advance(first.id, ["scheduled"], {
            status: "releasing",
            expiresAt: at(500),
            updatedAt: at(21),
          }),
        ),
      );
      expect(moves.filter((moved) => moved !== null)).toHaveLength(1);
      expect(await raw.message(first.id)).toMatchObject({
        status: "releasing",
        expiresAt: at(500),
        scheduledFor: at(10),
        updatedAt: at(21),
      });
      expect(await storage.messages.listScheduledDue("releasing", at(60), 10)).toEqual([first.id]);
      expect(await storage.messages.listScheduledDue("scheduled", at(60), 10)).toEqual([
        second.id,
        later.id,
      ]);
      const onlyScheduled = await storage.messages.listPage({
        organizationId: org.organization.id,
        status: "scheduled",
        limit: 10,
      });
      expect(onlyScheduled.map((m) => m.id).sort()).toEqual([second.id, later.id].sort());
    });
  });
}
