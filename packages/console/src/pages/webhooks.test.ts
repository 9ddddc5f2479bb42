import { describe, expect, it } from "vitest";
import { type ConsoleWorld, consoleWorld, HOSTILE } from "../test-support/console-world.js";

const DAY = 24 * 60 * 60 * 1000;

/** Attempts every due delivery until none is left (at most 20 passes). */
async function deliverAll(world: ConsoleWorld) {
  for (let pass = 0; pass < 20; pass += 1) if ((await world.deliver()) === 0) return;
  throw new Error("deliveries were still due after 20 passes");
}

/** A subscription to message.sent, and `count` messages sent: the first `good` ones delivered. */
async function deliveriesOf(world: ConsoleWorld, count: number, good: number) {
  const webhook = await world.webhook("https://hooks.example.com/in?token=secret");
  const campaign = await world.campaign();
  for (let i = 0; i < count; i += 1) {
    world.setReceiverStatus(i < good ? 204 : 500);
    await world.send(world.org.id, campaign.campaign_id);
    await deliverAll(world);
  }
  return webhook;
}

describe("webhook pages", () => {
  it("shows a subscription Tidings turned off for failing as such, and Enable clears it", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const webhook = await world.webhook("https://hooks.example.com/in");
    await world.deps.storage.webhooks.noteAttempt(
      webhook.webhook_id,
      "2026-01-01T00:00:00.000Z",
      false,
    );
    await world.deps.storage.webhooks.disableFailing(
      webhook.webhook_id,
      "2026-01-02T00:00:00.000Z",
      "2026-01-06T00:00:00.000Z",
    );
    const path = `/webhooks/${webhook.webhook_id}`;
    const list = await world.get(browser, "/webhooks");
    expect(list.body).toContain("Disabled: failing");
    const page = await world.get(browser, path);
    expect(page.body).toContain("Disabled: failing");
    expect(page.body).toContain("Tidings turned this subscription off");
    await world.post(browser, `${path}/enable`);
    const enabled = await world.get(browser, path);
    expect(enabled.body).not.toContain("Disabled: failing");
    expect(
      (await world.deps.storage.webhooks.get(world.org.id, webhook.webhook_id))?.disabledReason,
    ).toBeNull();
  });

  it("refuses an invalid webhook beside its fields, keeping what was typed", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const answer = await world.post(browser, "/webhooks", {
      url: "http://plain.example.com/?q=<x>",
      description: HOSTILE,
      status: "active",
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('id="url-error"');
    expect(answer.body).toContain('id="topics-error"');
    expect(answer.body).toContain("&lt;script>alert(&quot;x&quot;)&lt;/script>");
  });

  it("rotates a webhook's secret (shown once), tests it, disables, enables and deletes it", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const created = await world.post(browser, "/webhooks", {
      url: "https://hooks.example.com/in",
      topics: ["message.sent", "message.failed"],
      status: "active",
      description: "",
    });
    expect(created.status).toBe(201);
    expect(created.body).toContain("whsec_");
    const [webhook] = await world.deps.storage.webhooks.list(world.org.id);
    const path = `/webhooks/${webhook?.id}`;
    const rotated = await world.post(browser, `${path}/rotate-secret`);
    expect(rotated.body).toMatch(/whsec_[A-Za-z0-9_-]{43}/);
    expect((await world.get(browser, path)).body).not.toContain("whsec_");
    world.setReceiverStatus(503);
    const tested = await world.post(browser, `${path}/test`);
    expect(tested.body).toContain("the receiver answered 503");
    expect(world.transportRequests).toHaveLength(1);
    await world.post(browser, path, {
      url: "https://hooks.example.com/in",
      topics: ["message.sent"],
      status: "inactive",
      description: "Paused",
    });
    const disabled = await world.get(browser, path);
    expect(disabled.body).toContain(">Inactive</span>");
    expect(disabled.body).toContain(">Enable</button>");
    await world.post(browser, `${path}/enable`);
    expect((await world.get(browser, path)).body).toContain(">Active</span>");
    expect((await world.post(browser, `${path}/delete`)).status).toBe(303);
    expect((await world.get(browser, path)).status).toBe(404);
  });

  it("lists a subscription's deliveries newest first with their attempts, by status, in pages, with Redeliver", async () => {
    const world = await consoleWorld();
    let browser = await world.signIn();
    const webhook = await deliveriesOf(world, 30, 3);
    const path = `/webhooks/${webhook.webhook_id}`;
    // The failing ones are being retried: pending, after an attempt that answered 500.
    const retrying = await world.get(browser, `${path}?status=pending`);
    expect(retrying.status).toBe(200);
    expect(retrying.body.match(/class="delivery"/g)?.length).toBe(25);
    expect(retrying.body).toContain("answered 500");
    expect(retrying.body).not.toContain(">Redeliver</button>");
    // The list shows receivers' URLs without their query (the edit form keeps it for the owner).
    const list = retrying.body.slice(retrying.body.indexOf("deliveries-heading"));
    expect(list.slice(0, list.indexOf("form-heading"))).not.toContain("token=secret");
    const next =
      /href="([^"]+)" rel="next"/.exec(retrying.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(next).toMatch(new RegExp(`^/console${path}\\?status=pending&cursor=`));
    const rest = await world.get(browser, next.replace("/console", ""));
    expect(rest.body.match(/class="delivery"/g)?.length).toBe(2);
    // "failing" is the API's failing=true: the same 27, none of the 3 delivered.
    const failing = await world.get(browser, `${path}?status=failing`);
    expect(failing.status).toBe(200);
    expect(failing.body).toMatch(/<option value="failing" selected>/);
    expect(failing.body.match(/class="delivery"/g)?.length).toBe(25);
    expect(failing.body).not.toContain("answered 204");

    // The retry window closes: they fail for good.
    world.clock.advance(3 * DAY + 60_000);
    await deliverAll(world);
    browser = await world.signIn();
    const failed = await world.get(browser, `${path}?status=failed`);
    expect(failed.body.match(/class="delivery"/g)?.length).toBe(25);
    expect(failed.body).toMatch(/<option value="failed" selected>/);
    expect(failed.body).toContain("2 attempts");
    const succeeded = await world.get(browser, `${path}?status=succeeded`);
    expect(succeeded.body.match(/class="delivery"/g)?.length).toBe(3);
    expect(succeeded.body).toContain("answered 204");

    // Redeliver from the list: pending again, back to the subscription's page.
    const deliveryId = /\/deliveries\/([0-9a-f-]{36})\/redeliver/.exec(failed.body)?.[1] ?? "";
    const redelivered = await world.post(browser, `/deliveries/${deliveryId}/redeliver`, {
      from: "webhook",
    });
    expect(redelivered.status).toBe(303);
    expect(redelivered.headers.location).toBe(`/console${path}?notice=delivery_redelivered`);
    expect((await world.deps.storage.deliveries.get(world.org.id, deliveryId))?.status).toBe(
      "pending",
    );
    const again = await world.post(browser, `/deliveries/${deliveryId}/redeliver`, {
      from: "webhook",
    });
    expect(again.status).toBe(409);

    const wrong = await world.get(browser, `${path}?status=${encodeURIComponent(HOSTILE)}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('id="deliveries-status-error"');
    expect(wrong.body).not.toContain("<script>alert");
  });

  it("answers 404 for another organization's delivery, and changes nothing", async () => {
    const world = await consoleWorld();
    const webhook = await deliveriesOf(world, 1, 0);
    world.clock.advance(3 * DAY + 60_000);
    await deliverAll(world);
    const [delivery] = (
      await world.deps.storage.deliveries.listPage({ organizationId: world.org.id, limit: 1 })
    ).filter((d) => d.status === "failed");
    const theirs = await world.signIn(world.otherOrg.id);
    const answer = await world.post(theirs, `/deliveries/${delivery?.id}/redeliver`);
    expect(answer.status).toBe(404);
    expect(
      (await world.deps.storage.deliveries.get(world.org.id, delivery?.id ?? ""))?.status,
    ).toBe("failed");
    expect((await world.get(theirs, `/webhooks/${webhook.webhook_id}`)).status).toBe(404);
  });
});
