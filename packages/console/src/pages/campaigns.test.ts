import { describe, expect, it } from "vitest";
import { CAMPAIGN_FORM, consoleWorld } from "../test-support/console-world.js";

describe("campaign pages", () => {
  it("shows a refused campaign again with each problem beside its field and the input kept", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const answer = await world.post(browser, "/campaigns", {
      name: "",
      channel: "sms",
      category: "otp",
      sender: "Acme <Shop>",
      template: "No pin here",
      ttl_seconds: "abc",
      status: "active",
    });
    expect(answer.status).toBe(400);
    for (const field of ["name", "template", "ttl_seconds"]) {
      expect(answer.body, field).toMatch(new RegExp(`id="${field}-error"`));
      expect(answer.body).toMatch(new RegExp(`aria-describedby="[^"]*${field}-error`));
    }
    expect(answer.body).toContain('value="Acme &lt;Shop>"');
    expect(answer.body).toContain(">No pin here</textarea>");
    expect(answer.body).toMatch(/<option value="otp" selected>/);
    expect(await world.deps.storage.campaigns.list(world.org.id)).toEqual([]);
  });

  it("creates, edits, activates and deactivates a campaign", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const created = await world.post(browser, "/campaigns", {
      ...CAMPAIGN_FORM,
      status: "inactive",
      ttl_seconds: "600",
    });
    expect(created.status).toBe(303);
    const [campaign] = await world.deps.storage.campaigns.list(world.org.id);
    expect(campaign).toMatchObject({ status: "inactive", ttlSeconds: 600 });
    const path = `/campaigns/${campaign?.id}`;
    expect(created.headers.location).toBe(`/console${path}?notice=campaign_created`);
    const saved = await world.post(browser, path, {
      name: "Shipping",
      sender: "Acme",
      template: "Shipped: {{order}}",
      ttl_seconds: "3600",
    });
    expect(saved.status).toBe(303);
    expect(await world.deps.storage.campaigns.get(world.org.id, campaign?.id ?? "")).toMatchObject({
      name: "Shipping",
      template: "Shipped: {{order}}",
      ttlSeconds: 3600,
    });
    await world.post(browser, `${path}/activate`);
    expect((await world.get(browser, path)).body).toContain(">Deactivate</button>");
    await world.post(browser, `${path}/deactivate`);
    const page = await world.get(browser, path);
    expect(page.body).toContain(">Activate</button>");
    expect(page.body).toContain(">Inactive</span>");
  });

  it("changes an inactive campaign's channel and category, and refuses it beside the fields while active, keeping the choice", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign(world.org.id, { status: "inactive" });
    const path = `/campaigns/${campaign.campaign_id}`;
    const edit = {
      name: campaign.name,
      channel: "viber",
      category: "promotional",
      sender: "AcmeShop",
      template: campaign.template,
      ttl_seconds: "86400",
    };
    const form = await world.get(browser, path);
    expect(form.body).toMatch(/<select id="channel" name="channel">/);
    expect((await world.post(browser, path, edit)).status).toBe(303);
    expect(
      await world.deps.storage.campaigns.get(world.org.id, campaign.campaign_id),
    ).toMatchObject({ channel: "viber", category: "promotional", sender: "AcmeShop" });

    await world.post(browser, `${path}/activate`);
    const refused = await world.post(browser, path, { ...edit, channel: "sms", name: "Kept" });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('id="channel-error"');
    expect(refused.body).toContain("deactivate it first");
    expect(refused.body).not.toContain('id="category-error"');
    expect(refused.body).toMatch(/<option value="sms" selected>/);
    expect(refused.body).toContain('value="Kept"');
    expect(
      await world.deps.storage.campaigns.get(world.org.id, campaign.campaign_id),
    ).toMatchObject({ channel: "viber", name: campaign.name, status: "active" });
    // Unchanged channel and category save the rest while active.
    expect((await world.post(browser, path, { ...edit, name: "Renamed" })).status).toBe(303);
  });

  it("sets a Viber campaign's SMS fallback sender, shows it in the form, and clears it when emptied", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const viber = {
      ...CAMPAIGN_FORM,
      channel: "viber",
      sms_fallback: "true",
      sms_sender: "AcmeSMS",
      status: "inactive",
    };
    expect((await world.post(browser, "/campaigns", viber)).status).toBe(303);
    const [campaign] = await world.deps.storage.campaigns.list(world.org.id);
    expect(campaign).toMatchObject({ smsFallback: true, smsSender: "AcmeSMS" });
    const path = `/campaigns/${campaign?.id}`;
    expect((await world.get(browser, path)).body).toContain('value="AcmeSMS"');
    const refused = await world.post(browser, path, { ...viber, sms_sender: "Not a sender id" });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('id="sms_sender-error"');
    await world.post(browser, path, { ...viber, sms_sender: "" });
    expect(
      (await world.deps.storage.campaigns.get(world.org.id, campaign?.id ?? ""))?.smsSender,
    ).toBeNull();
  });

  it("turns link tracking on and off with the Track links checkbox", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const form = await world.get(browser, "/campaigns");
    expect(form.body).toMatch(/<label[^>]*for="track_links"[^>]*><input[^>]*>Track links<\/label>/);
    const tracked = { ...CAMPAIGN_FORM, track_links: "true", status: "inactive" };
    expect((await world.post(browser, "/campaigns", tracked)).status).toBe(303);
    const [campaign] = await world.deps.storage.campaigns.list(world.org.id);
    expect(campaign?.trackLinks).toBe(true);
    const path = `/campaigns/${campaign?.id}`;
    const { track_links: _, ...untracked } = tracked;
    expect((await world.post(browser, path, untracked)).status).toBe(303);
    expect(
      (await world.deps.storage.campaigns.get(world.org.id, campaign?.id ?? ""))?.trackLinks,
    ).toBe(false);
  });

  it("lists campaigns newest first in pages, the status filter kept in every page link", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    for (let i = 0; i < 60; i += 1) {
      await world.campaign(world.org.id, {
        name: `Campaign ${i}`,
        status: i % 3 === 0 ? "inactive" : "active",
      });
    }
    await world.campaign(world.otherOrg.id, { name: "Theirs" });
    const first = await world.get(browser, "/campaigns?status=active");
    expect(first.status).toBe(200);
    // 40 active ones: the newest 25 on the first page, the inactive ones on none.
    expect(first.body).toContain(">Campaign 59</a>");
    expect(first.body).not.toContain(">Campaign 57</a>");
    expect(first.body.match(/<tr>/g)?.length).toBe(1 + 25);
    expect(first.body).not.toContain("Theirs");
    expect(first.body).toMatch(/<option value="active" selected>/);
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(next).toMatch(/^\/console\/campaigns\?status=active&cursor=/);
    const second = await world.get(browser, next.replace("/console", ""));
    expect(second.body.match(/<tr>/g)?.length).toBe(1 + 15);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain(">First page</a>");
    const stale = await world.get(browser, "/campaigns?cursor=nonsense");
    expect(stale.status).toBe(400);
    expect(stale.body).toContain("This page link is out of date");
    const wrong = await world.get(browser, "/campaigns?status=paused");
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('id="filter-status-error"');
  });

  it("pre-fills promotional campaigns with the recommended window, visibly, and takes a custom one", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const form = await world.get(browser, "/campaigns");
    expect(form.body).toMatch(
      /<option value="promotional" selected>If promotional, the recommended window \(mon, tue, wed, thu, fri, sat 09:00–20:00 in the recipient's local time, public holidays skipped\); otherwise any time<\/option>/,
    );
    expect(form.body).toMatch(/value="09:00" id="window_start"/);
    const create = async (fields: Record<string, string | string[]>) => {
      const answer = await world.post(browser, "/campaigns", { ...CAMPAIGN_FORM, ...fields });
      const id = /\/campaigns\/(cmp_[^?]+)/.exec(answer.headers.location ?? "")?.[1] ?? "";
      return { answer, stored: await world.deps.storage.campaigns.get(world.org.id, id) };
    };
    const promo = await create({ category: "promotional", sending_window: "promotional" });
    expect(promo.stored?.sendingWindow).toEqual({
      days: ["mon", "tue", "wed", "thu", "fri", "sat"],
      start: "09:00",
      end: "20:00",
      skipPublicHolidays: true,
    });
    const page = await world.get(browser, `/campaigns/${promo.stored?.id}`);
    expect(page.body).toContain("mon, tue, wed, thu, fri, sat 09:00–20:00 in the recipient");
    expect(page.body).toMatch(/<option value="recommended" selected>/);
    // The same choice leaves a transactional campaign without a window.
    const transactional = await create({ sending_window: "promotional" });
    expect(transactional.stored?.sendingWindow).toBeNull();
    const custom = await create({
      category: "promotional",
      sending_window: "custom",
      window_days: ["sat", "sun"],
      window_start: "10:00",
      window_end: "24:00",
    });
    expect(custom.stored?.sendingWindow).toEqual({
      days: ["sun", "sat"],
      start: "10:00",
      end: "24:00",
      skipPublicHolidays: false,
    });
    const backwards = await create({
      category: "promotional",
      sending_window: "custom",
      window_days: ["mon"],
      window_start: "20:00",
      window_end: "09:00",
    });
    expect(backwards.answer.status).toBe(400);
    expect(backwards.answer.body).toContain('id="window_end-error"');
    expect(backwards.answer.body).toMatch(/value="09:00" id="window_end"/);
    // Editing to any time.
    const edited = await world.post(browser, `/campaigns/${promo.stored?.id}`, {
      ...CAMPAIGN_FORM,
      category: "promotional",
      sending_window: "none",
    });
    expect(edited.status).toBe(303);
    expect(
      (await world.deps.storage.campaigns.get(world.org.id, promo.stored?.id ?? ""))?.sendingWindow,
    ).toBeNull();
  });
});
