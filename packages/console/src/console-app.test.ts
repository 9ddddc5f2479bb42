import {
  createApiKey,
  createCampaign,
  createProfile,
  createWebhook,
  revokeConsoleSessions,
  sendMessage,
} from "@tidings/core";
import { describe, expect, it } from "vitest";
import { createConsole, SESSION_COOKIE } from "./console-app.js";
import { type ConsoleWorld, consoleWorld } from "./test-support/console-world.js";

const HOSTILE = `<script>alert("x")</script>'"&amp;`;
const PAGES = ["/", "/campaigns", "/messages", "/webhooks", "/keys", "/profiles"];
const HOUR = 60 * 60 * 1000;

const campaignInput = (overrides: Record<string, unknown> = {}) => ({
  name: "Order updates",
  channel: "sms",
  category: "transactional",
  sender: "Acme",
  template: "Your order {{order}} shipped",
  status: "active",
  ...overrides,
});

async function aCampaign(world: ConsoleWorld, organizationId = world.org.id, name = "Orders") {
  const actor = { organizationId, apiKeyId: null };
  return (await createCampaign(world.deps, actor, campaignInput({ name })))._unsafeUnwrap();
}

/** A message sent to +14155550002 by a fresh key of the campaign's organization. */
async function aSentMessage(
  world: ConsoleWorld,
  organizationId: string,
  campaignId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const key = (
    await createApiKey(world.deps, { organization_id: organizationId, scopes: ["messages:send"] })
  )._unsafeUnwrap();
  const sent = (
    await sendMessage(
      world.deps,
      { organizationId, apiKeyId: key.key_id },
      {
        campaign_id: campaignId,
        recipient: { type: "phone_number", value: "+14155550002" },
        params: { order: "1" },
        ...extra,
      },
    )
  )._unsafeUnwrap();
  return (sent as unknown as { message_id: string }).message_id;
}

describe("signing in", () => {
  it("shows every page signed out as the sign-in page, 401, with nothing of the organization", async () => {
    const world = await consoleWorld();
    await aCampaign(world);
    for (const path of [...PAGES, "/campaigns/cmp_01jd0000000000000000000000"]) {
      const page = await world.get(null, path);
      expect(page.status, path).toBe(401);
      expect(page.body).toContain("tidings console link");
      expect(page.body).not.toContain("Acme");
      expect(page.body).not.toContain(world.org.id);
    }
  });

  it("opens a link on a page with a Sign in button, and only the button spends it", async () => {
    const world = await consoleWorld();
    const token = await world.linkToken();
    for (let i = 0; i < 2; i += 1) {
      const opened = await world.get(null, `/sign-in?token=${token}`);
      expect(opened.status).toBe(200);
      expect(opened.body).toContain(">Sign in</button>");
      expect(opened.headers["set-cookie"]).toBeUndefined();
    }
    const pressed = await world.request("POST", "/sign-in", { form: { token } });
    expect(pressed.status).toBe(303);
    expect(pressed.headers.location).toBe("/console");
    const cookie = pressed.headers["set-cookie"] ?? "";
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; `));
    expect(cookie).toContain("Path=/console");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain("Secure");
  });

  it("refuses a reused, forged or expired link with the sign-in page, 401, and no data", async () => {
    const world = await consoleWorld();
    const used = await world.linkToken();
    await world.request("POST", "/sign-in", { form: { token: used } });
    const expired = await world.linkToken(world.org.id, 15);
    world.clock.advance(15 * 60 * 1000);
    const forged = "A".repeat(43);
    for (const token of [used, forged, expired, "", "<b>x</b>"]) {
      for (const answer of [
        await world.get(null, `/sign-in?token=${encodeURIComponent(token)}`),
        await world.request("POST", "/sign-in", { form: { token } }),
      ]) {
        expect(answer.status, token).toBe(401);
        expect(answer.body).toContain("cannot be used");
        expect(answer.body).not.toContain("Acme");
        expect(answer.headers["set-cookie"]).toBeUndefined();
      }
    }
  });

  it("marks the cookie Secure exactly when the public URL is https", async () => {
    const world = await consoleWorld();
    const secure = createConsole(world.deps, { publicUrl: "https://tidings.example.com" });
    const token = await world.linkToken();
    const answer = await secure.handle({
      method: "POST",
      url: "/sign-in",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${token}`,
    });
    expect(answer.headers["set-cookie"]).toContain("; Secure");
  });

  it("ends a session after 12 idle hours, but not while it is used", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    world.clock.advance(11 * HOUR);
    expect((await world.get(browser, "/")).status).toBe(200);
    world.clock.advance(11 * HOUR);
    expect((await world.get(browser, "/campaigns")).status).toBe(200);
    world.clock.advance(12 * HOUR);
    const expired = await world.get(browser, "/campaigns");
    expect(expired.status).toBe(401);
    expect(expired.body).not.toContain("Acme");
  });

  it("signs out: the session ends and the cookie is cleared", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const out = await world.post(browser, "/sign-out");
    expect(out.status).toBe(200);
    expect(out.body).toContain("You have signed out.");
    expect(out.headers["set-cookie"]).toContain("Max-Age=0");
    expect((await world.get(browser, "/")).status).toBe(401);
  });

  it("ends every session of an organization when they are revoked, and only those", async () => {
    const world = await consoleWorld();
    const mine = await world.signIn();
    const theirs = await world.signIn(world.otherOrg.id);
    await revokeConsoleSessions(world.deps, world.org.id);
    expect((await world.get(mine, "/")).status).toBe(401);
    expect((await world.get(theirs, "/")).status).toBe(200);
  });
});

describe("every answer", () => {
  it("carries a strict CSP and the security headers, and no inline script or style", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    for (const path of [...PAGES, "/sign-in?token=x"]) {
      const page = await world.get(path.startsWith("/sign-in") ? null : browser, path);
      const csp = page.headers["content-security-policy"] ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(page.headers["referrer-policy"]).toBe("no-referrer");
      expect(page.headers["cache-control"]).toBe("no-store");
      expect(page.headers["x-content-type-options"]).toBe("nosniff");
      expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
      expect(page.body).not.toMatch(/\sstyle=|\son[a-z]+=/);
    }
  });

  it("serves its stylesheet and script from the package", async () => {
    const world = await consoleWorld();
    const css = await world.get(null, "/assets/console.css");
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toContain("text/css");
    const js = await world.get(null, "/assets/console.js");
    expect(js.headers["content-type"]).toContain("text/javascript");
    expect(js.body).toContain("data-copy");
    expect((await world.get(null, "/assets/nope.js")).status).toBe(401);
  });
});

describe("CSRF", () => {
  it("refuses a POST without, with a wrong, or with another session's token: 403, nothing changed", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const other = await world.signIn();
    const form = campaignInput({ name: "Forged" }) as Record<string, string>;
    for (const csrf of [undefined, "wrong", other.csrf]) {
      const answer = await world.request("POST", "/campaigns", {
        cookie: browser.cookie,
        form: csrf === undefined ? form : { ...form, csrf_token: csrf },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain("Nothing was changed");
    }
    const crossSite = await world.request("POST", "/campaigns", {
      cookie: browser.cookie,
      form: { ...form, csrf_token: browser.csrf },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    expect(await world.deps.storage.campaigns.list(world.org.id)).toEqual([]);
    const signOut = await world.request("POST", "/sign-out", { cookie: browser.cookie });
    expect(signOut.status).toBe(403);
    expect((await world.get(browser, "/")).status).toBe(200);
  });
});

describe("organizations", () => {
  it("answers 404 for another organization's campaign, webhook, key, profile and message", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const theirs = { organizationId: world.otherOrg.id, apiKeyId: null };
    const campaign = await aCampaign(world, world.otherOrg.id);
    const webhook = (
      await createWebhook(world.deps, theirs, {
        url: "https://hooks.example.com/x",
        topics: ["message.sent"],
      })
    )._unsafeUnwrap();
    const key = (
      await createApiKey(world.deps, {
        organization_id: world.otherOrg.id,
        scopes: ["messages:send"],
      })
    )._unsafeUnwrap();
    const profile = (
      await createProfile(world.deps, theirs, { phone_number: "+14155550002" })
    )._unsafeUnwrap();
    const messageId = await aSentMessage(world, world.otherOrg.id, campaign.campaign_id);
    for (const path of [
      `/campaigns/${campaign.campaign_id}`,
      `/webhooks/${webhook.webhook_id}`,
      `/profiles/${profile.public_id}`,
      `/messages/${messageId}`,
    ]) {
      const page = await world.get(browser, path);
      expect(page.status, path).toBe(404);
      expect(page.body).not.toContain(world.otherOrg.name);
    }
    for (const path of [
      `/campaigns/${campaign.campaign_id}/deactivate`,
      `/webhooks/${webhook.webhook_id}/delete`,
      `/keys/${key.key_id}/revoke`,
    ]) {
      expect((await world.post(browser, path)).status, path).toBe(404);
    }
    expect(
      (await world.deps.storage.campaigns.get(world.otherOrg.id, campaign.campaign_id))?.status,
    ).toBe("active");
    expect(
      await world.deps.storage.webhooks.get(world.otherOrg.id, webhook.webhook_id),
    ).not.toBeNull();
    expect((await world.deps.storage.apiKeys.get(key.key_id))?.revokedAt).toBeNull();
    const search = await world.get(browser, `/messages?q=${messageId}`);
    expect(search.status).toBe(404);
  });
});

describe("forms", () => {
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
      ...(campaignInput({ status: "inactive" }) as Record<string, string>),
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

  it("shows a key's secrets once, then lists it by name; revokes it and shows it revoked", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const refused = await world.post(browser, "/keys", { name: "No scopes" });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('id="scopes-error"');
    expect(refused.body).toContain('value="No scopes"');
    const created = await world.post(browser, "/keys", {
      name: "Checkout",
      scopes: ["messages:send", "profiles:read"],
    });
    expect(created.status).toBe(201);
    const token = /(key_[0-9a-z]+:[A-Za-z0-9_-]+)/.exec(created.body)?.[1] ?? "";
    expect(token).not.toBe("");
    expect(created.body).toContain("whsec_");
    const listed = await world.get(browser, "/keys");
    expect(listed.body).toContain("Checkout");
    expect(listed.body).not.toContain(token);
    expect(listed.body).not.toContain("whsec_");
    const keyId = token.split(":")[0] ?? "";
    expect((await world.post(browser, `/keys/${keyId}/revoke`)).status).toBe(303);
    const after = await world.get(browser, "/keys?notice=key_revoked");
    expect(after.body).toContain(">Revoked</span>");
    expect(after.body).not.toContain("Revoke Checkout");
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
});

describe("escaping", () => {
  it("shows HTML, script and quotes in every text a user types as text", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const campaign = (
      await createCampaign(world.deps, actor, campaignInput({ name: HOSTILE, sender: "Acme" }))
    )._unsafeUnwrap();
    await createWebhook(world.deps, actor, {
      url: "https://hooks.example.com/in",
      topics: ["message.sent"],
      description: HOSTILE,
    });
    await createApiKey(world.deps, {
      organization_id: world.org.id,
      name: HOSTILE,
      scopes: ["messages:send"],
    });
    const profile = (
      await createProfile(world.deps, actor, {
        phone_number: "+14155550002",
        first_name: HOSTILE,
        email: "a@example.com",
        attributes: { note: HOSTILE },
      })
    )._unsafeUnwrap();
    for (const path of [
      "/campaigns",
      `/campaigns/${campaign.campaign_id}`,
      "/webhooks",
      "/keys",
      "/profiles",
      `/profiles/${profile.public_id}`,
      `/profiles?q=${encodeURIComponent(HOSTILE)}`,
    ]) {
      const page = await world.get(browser, path);
      expect(page.body, path).not.toContain("<script>alert");
      expect(page.body, path).not.toContain('"x")</script>');
    }
    const detail = await world.get(browser, `/campaigns/${campaign.campaign_id}`);
    expect(detail.body).toContain(`&lt;script>alert(&quot;x&quot;)&lt;/script>'&quot;&amp;amp;`);
  });
});

describe("overview", () => {
  it("charts the last 24 hours of messages by hour and status, drawn on the server", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await aCampaign(world);
    world.clock.advance(-25 * HOUR);
    await aSentMessage(world, world.org.id, campaign.campaign_id);
    world.clock.advance(25 * HOUR);
    await aSentMessage(world, world.org.id, campaign.campaign_id);
    await aSentMessage(
      world,
      world.otherOrg.id,
      await aCampaign(world, world.otherOrg.id).then((c) => c.campaign_id),
    );
    const page = await world.get(browser, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain('aria-label="1 message in the last 24 hours: 1 sent."');
    expect(page.body.match(/<rect [^>]*fill="#8da2c0"/g)).toHaveLength(2);
    expect(page.body).toContain("Sent, not yet delivered: 1");
  });
});

describe("profiles and messages", () => {
  it("finds profiles by phone or email, pages with the filter kept, and shows consent history", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    for (let i = 0; i < 30; i += 1) {
      await createProfile(world.deps, actor, {
        phone_number: `+1415555${String(1000 + i)}`,
        email: i < 27 ? "shared@example.com" : `p${i}@example.com`,
        sms_marketing_consent: true,
      });
    }
    const first = await world.get(browser, "/profiles?q=shared%40example.com");
    expect(first.status).toBe(200);
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(next).toContain("q=shared%40example.com");
    const second = await world.get(browser, next.replace("/console", ""));
    expect(second.body.match(/<tr>/g)?.length).toBe(1 + 2);
    const byPhone = await world.get(browser, "/profiles?q=%2B1%20415%20555%201003");
    const profileId = /href="\/console\/profiles\/(prf_[0-9a-z]+)"/.exec(byPhone.body)?.[1] ?? "";
    const profile = await world.get(browser, `/profiles/${profileId}`);
    expect(profile.body).toContain("Consent history");
    expect(profile.body).toContain("(created)");
    const bad = await world.get(browser, "/profiles?q=12345");
    expect(bad.status).toBe(400);
    expect(bad.body).toContain("international form");
  });

  it("finds a message by id and shows its timeline", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await aCampaign(world);
    const messageId = await aSentMessage(world, world.org.id, campaign.campaign_id, {
      params: { order: "<b>7</b>" },
      client_reference: HOSTILE,
    });
    const search = await world.get(browser, `/messages?q=${messageId.toUpperCase()}`);
    expect(search.status).toBe(303);
    expect(search.headers.location).toBe(`/console/messages/${messageId}`);
    const page = await world.get(browser, `/messages/${messageId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("<strong>sent</strong>");
    expect(page.body).not.toContain("<script>alert");
    expect((await world.get(browser, "/messages?q=nothing-like-an-id")).status).toBe(404);
  });
});
