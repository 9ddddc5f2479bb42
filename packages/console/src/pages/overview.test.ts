import { describe, expect, it } from "vitest";
import { consoleWorld } from "../test-support/console-world.js";

const HOUR = 60 * 60 * 1000;

describe("overview", () => {
  it("charts the last 24 hours of messages by hour and status, drawn on the server", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    world.clock.advance(-25 * HOUR);
    await world.send(world.org.id, campaign.campaign_id);
    world.clock.advance(25 * HOUR);
    await world.send(world.org.id, campaign.campaign_id);
    await world.send(world.otherOrg.id, (await world.campaign(world.otherOrg.id)).campaign_id);
    const page = await world.get(browser, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain('aria-label="1 message in the last 24 hours: 1 sent."');
    expect(page.body.match(/<rect [^>]*fill="#8da2c0"/g)).toHaveLength(2);
    expect(page.body).toContain("Sent, not yet delivered: 1");
  });

  it("shows each channel's provider with its sends and failures of the last hour", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    world.clock.advance(-2 * HOUR);
    await world.send(world.org.id, campaign.campaign_id);
    world.clock.advance(2 * HOUR);
    const failed = await world.send(world.org.id, campaign.campaign_id);
    await world.send(world.org.id, campaign.campaign_id);
    await world.deps.storage.messages.advance(failed, ["sent"], {
      status: "failed",
      error: { code: "upstream_failed", message: "No.", provider: "sandbox", provider_code: null },
      updatedAt: new Date(world.clock.now()).toISOString(),
    });
    const page = await world.get(browser, "/");
    expect(page.body).toContain("Providers (last hour)");
    const row = (name: string) =>
      page.body.match(new RegExp(`<tr><td>${name}</td>(.*?)</tr>`))?.[1]?.replace(/<[^>]+>/g, "|");
    expect(row("SMS")).toBe("|sandbox||2|||1||");
    expect(page.body).toContain(`href="/console/messages?status=failed">1</a>`);
    expect(row("Viber")).toBe("|sandbox||0||0|");
  });

  it("shows the last day's sends and reported spend per recipient country, the most sends first", async () => {
    const world = await consoleWorld();
    const campaign = await world.campaign();
    world.clock.advance(-25 * HOUR);
    await world.send(world.org.id, campaign.campaign_id, {}, "+447400123456"); // a day ago
    world.clock.advance(25 * HOUR);
    const gb = [
      await world.send(world.org.id, campaign.campaign_id, {}, "+447400123456"),
      await world.send(world.org.id, campaign.campaign_id, {}, "+447400123457"),
    ];
    await world.send(world.org.id, campaign.campaign_id, {}, "+447781123456"); // Guernsey
    await world.send(world.otherOrg.id, (await world.campaign(world.otherOrg.id)).campaign_id);
    const leg = (messageId: string, amountMicros: number, currency: string) => ({
      messageId,
      organizationId: world.org.id,
      channel: "sms" as const,
      provider: "vonage",
      amountMicros,
      currency,
      country: "GB",
      reportedAt: new Date(world.clock.now()).toISOString(),
    });
    await world.deps.storage.messages.recordPrice(leg(gb[0] ?? "", 33_300, "EUR"));
    await world.deps.storage.messages.recordPrice(leg(gb[1] ?? "", 40_000, "EUR"));
    const page = await world.get(await world.signIn(), "/");
    expect(page.body).toContain("Sends and spend per country (last 24 hours)");
    const rows = [
      ...page.body.matchAll(/<tr><td>(GB|GG|US)<\/td><td>(\d+)<\/td><td>(.*?)<\/td><\/tr>/g),
    ];
    expect(rows.map((row) => [row[1], row[2], row[3]?.replace(/<[^>]+>/g, "")])).toEqual([
      ["GB", "2", "0.0733 EUR"],
      ["GG", "1", "—"],
    ]);
    const theirs = await world.get(await world.signIn(world.otherOrg.id), "/");
    expect(theirs.body).not.toContain("0.0733");
  });

  it("lists the failing webhook destinations: being retried, failed in the last 24 hours, the last answer", async () => {
    const world = await consoleWorld();
    const hook = await world.webhook("https://down.example.com/hooks?token=secret");
    const campaign = await world.campaign();
    world.setReceiverStatus(503);
    await world.send(world.org.id, campaign.campaign_id);
    await world.send(world.org.id, campaign.campaign_id, {
      webhook_url: "https://own.example.com/in?key=k",
    });
    await world.deliver();
    const browser = await world.signIn();
    const page = await world.get(browser, "/");
    expect(page.body).toContain("Failing webhook destinations");
    expect(page.body).toContain(`href="/console/webhooks/${hook.webhook_id}"`);
    expect(page.body).toContain("https://down.example.com/hooks");
    expect(page.body).toContain("https://own.example.com/in");
    expect(page.body).not.toContain("token=secret");
    expect(page.body).not.toContain("key=k");
    expect(page.body).toContain("answered 503");

    // Nothing of another organization's; and none once the receivers answer again.
    const theirs = await world.signIn(world.otherOrg.id);
    expect((await world.get(theirs, "/")).body).toContain("No webhook destination is failing");
    world.setReceiverStatus(204);
    world.clock.advance(HOUR);
    await world.deliver();
    const healthy = await world.get(await world.signIn(), "/");
    expect(healthy.body).toContain("No webhook destination is failing");
  });
});
