import { createApiKey, createProfile, revokeConsoleSessions } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { createConsole, SESSION_COOKIE } from "./console-app.js";
import { CAMPAIGN_FORM, consoleWorld, HOSTILE } from "./test-support/console-world.js";

const PAGES = ["/", "/campaigns", "/messages", "/webhooks", "/keys", "/profiles"];
const HOUR = 60 * 60 * 1000;

describe("signing in", () => {
  it("shows every page signed out as the sign-in page, 401, with nothing of the organization", async () => {
    const world = await consoleWorld();
    await world.campaign();
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

  it("answers a method a path does not take with a page saying so, 405 and Allow", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    const opened = await world.get(browser, `/campaigns/${campaign.campaign_id}/activate`);
    expect(opened.status).toBe(405);
    expect(opened.headers.allow).toBe("POST");
    expect(opened.body).toContain("open the page the button is on");
    expect(opened.body).toContain('aria-label="Console"');
    const posted = await world.post(browser, "/messages");
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe("GET");
    expect((await world.request("HEAD", "/campaigns", { cookie: browser.cookie })).status).toBe(
      200,
    );
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
    const form = { ...CAMPAIGN_FORM, name: "Forged" };
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
    const campaign = await world.campaign(world.otherOrg.id);
    const webhook = await world.webhook("https://hooks.example.com/x", world.otherOrg.id);
    const key = (
      await createApiKey(world.deps, {
        organization_id: world.otherOrg.id,
        scopes: ["messages:send"],
      })
    )._unsafeUnwrap();
    const profile = (
      await createProfile(world.deps, theirs, { phone_number: "+14155550002" })
    )._unsafeUnwrap();
    const messageId = await world.send(world.otherOrg.id, campaign.campaign_id);
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
    // Searched for, it is no message of this organization (nor any one's client reference).
    const search = await world.get(browser, `/messages?q=${messageId}`);
    expect(search.body).toContain("No message matches.");
    expect(search.body).not.toContain(`/messages/${messageId}`);
    const byId = await world.get(browser, `/messages?q=${messageId}&by=id`);
    expect(byId.status).toBe(404);
  });
});

describe("escaping", () => {
  it("shows HTML, script and quotes in every text a user types as text", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const campaign = await world.campaign(world.org.id, { name: HOSTILE });
    await world.webhook("https://hooks.example.com/in", world.org.id, HOSTILE);
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
