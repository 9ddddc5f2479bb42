import { createIds, manualClock } from "@tidings/core";
import { CorruptRowError } from "@tidings/core/sql";
import { memoryStorage, seedMessage, seedOrganization } from "@tidings/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFetchHandler } from "../fetch-handler.js";
import type { HttpLogger, HttpRequest } from "../types.js";
import { trustedProxies } from "./client-address.js";
import { createLinkApp } from "./link-app.js";

const CODE = "AbCdEfGh1234";
const STORED = "https://shop.example/o/1?t=secret";

async function linkWorld(
  options: { proxies?: string[]; stored?: string; logger?: HttpLogger } = {},
) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12, 0, 5));
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock) };
  const org = await seedOrganization(storage);
  const { message } = await seedMessage(storage, org);
  await storage.links.insertMany([
    {
      code: CODE,
      messageId: message.id,
      organizationId: message.organizationId,
      originalUrl: options.stored ?? STORED,
      createdAt: message.createdAt,
    },
  ]);
  const app = createLinkApp(deps, {
    logger: options.logger ?? { error: (msg) => expect.fail(msg) },
    trustedProxies: trustedProxies(options.proxies ?? []),
  });
  const get = (url: string, extra: Partial<HttpRequest> = {}) =>
    app.handle({ method: "GET", url, headers: {}, remoteAddress: "203.0.113.9", ...extra });
  const clicks = async () => (await storage.links.get(CODE))?.clicks;
  return { app, get, clicks, clock, storage, message };
}

describe("GET /l/{code} (issue 35 item 3)", () => {
  it("redirects to the stored URL, uncached and without a referrer, and counts the click", async () => {
    const { get, clicks } = await linkWorld();
    const response = await get(`/${CODE}`);
    expect(response.status).toBe(302);
    expect(response.headers).toMatchObject({
      location: STORED,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
    expect(response.route).toBe("/l/{code}");
    expect(await clicks()).toBe(1);
  });

  it("HEAD and link-preview fetchers redirect without counting", async () => {
    const { get, clicks } = await linkWorld();
    const head = await get(`/${CODE}`, { method: "HEAD" });
    expect(head).toMatchObject({ status: 302, body: "" });
    expect(head.headers.location).toBe(STORED);
    for (const agent of [
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "WhatsApp/2.23.20.0 A",
      "TelegramBot (like TwitterBot)",
      "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    ]) {
      const preview = await get(`/${CODE}`, { headers: { "User-Agent": agent } });
      expect(preview.status).toBe(302);
    }
    expect(await clicks()).toBe(0);
  });

  it("a query string never changes the target, and other methods are refused", async () => {
    const { get, app } = await linkWorld();
    for (const query of ["?url=https://evil.example", "?next=//evil.example", "#https://evil"]) {
      const response = await get(`/${CODE}${query}`);
      expect(response.headers.location).toBe(STORED);
    }
    const post = await app.handle({ method: "POST", url: `/${CODE}`, headers: {} });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });

  it("bad codes are a plain 404 page: too long, non-base62, percent-encoded tricks", async () => {
    const { get, clicks } = await linkWorld();
    const bad = [
      `/${CODE}x`,
      `/${CODE.slice(1)}`,
      `/${CODE}/`,
      `/${CODE}/x`,
      `/${"A".repeat(5_000)}`,
      "/AbCdEfGh123_",
      "/AbCdEfGh123-",
      "/AbCdEfGh12é4",
      `/${encodeURIComponent(CODE).replace("A", "%41")}`,
      "/%2F%2Fevil.example",
      "//evil.example",
      "/..%2F..%2Fetc%2Fpasswd",
      `/${CODE}%0d%0aLocation:%20https://evil.example`,
      `/%00${CODE}`,
      "/",
      "",
    ];
    for (const url of bad) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain("Link not found");
    }
    expect(await clicks()).toBe(0);
  });

  it("10,000 random codes from one address: only 404 or 429, never a 5xx or a redirect elsewhere", async () => {
    const { get } = await linkWorld();
    const codes = fc.sample(
      fc.oneof(
        fc.stringMatching(/^[0-9A-Za-z]{12}$/),
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
        fc.string({ unit: "binary", maxLength: 20 }),
      ),
      { numRuns: 10_000, seed: 35 },
    );
    const statuses = new Map<number, number>();
    for (const code of codes) {
      const response = await get(`/${code}`);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 302) expect(response.headers.location).toBe(STORED);
    }
    // The known code cannot come up by chance: one in 62^12.
    expect([...statuses.keys()].sort()).toEqual([404, 429]);
    expect(statuses.get(404)).toBe(60);
  });

  it("an address past 60 unknown codes in a minute gets 429 until the minute ends; known codes keep working", async () => {
    const { get, clock } = await linkWorld();
    for (let i = 0; i < 60; i += 1) expect((await get(`/unknown${i}`)).status).toBe(404);
    const limited = await get("/unknown-61");
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("55");
    expect((await get(`/${CODE}`)).status).toBe(302);
    expect((await get("/x", { remoteAddress: "198.51.100.1" })).status).toBe(404);
    clock.advance(55_000);
    expect((await get("/unknown-next-minute")).status).toBe(404);
  });

  it("X-Forwarded-For names the client only behind a trusted proxy", async () => {
    const untrusted = await linkWorld();
    const spoofed = (i: number) => ({ headers: { "x-forwarded-for": `192.0.2.${i}` } });
    for (let i = 0; i < 60; i += 1) await untrusted.get(`/u${i}`, spoofed(i));
    expect((await untrusted.get("/u61", spoofed(200))).status).toBe(429);

    const behindProxy = await linkWorld({ proxies: ["10.0.0.0/8"] });
    const viaProxy = (client: string) => ({
      remoteAddress: "::ffff:10.1.2.3",
      headers: { "x-forwarded-for": `1.2.3.4, ${client}` },
    });
    for (let i = 0; i < 60; i += 1) await behindProxy.get(`/p${i}`, viaProxy("192.0.2.7"));
    expect((await behindProxy.get("/p61", viaProxy("192.0.2.7"))).status).toBe(429);
    expect((await behindProxy.get("/p62", viaProxy("192.0.2.8"))).status).toBe(404);
  });

  it("a stored URL that is not http(s) is never a redirect: the 404 page, nothing counted", async () => {
    for (const stored of [
      "javascript:alert(1)",
      "not a url at all",
      "https://shop.example/o/1\r\nSet-Cookie: session=stolen",
    ]) {
      const { get, clicks } = await linkWorld({ stored });
      for (const method of ["GET", "HEAD"]) {
        const response = await get(`/${CODE}`, { method });
        expect(response.status, stored).toBe(404);
        expect(response.headers.location).toBeUndefined();
      }
      expect(await clicks()).toBe(0);
    }
  });

  it("a link row the storage finds corrupt is a plain 500 with no Location, logged, never a crash", async () => {
    const errors: unknown[] = [];
    const { get, storage, clicks } = await linkWorld({
      logger: { error: (_message, fields) => errors.push(fields?.error) },
    });
    // What a SQL storage throws for a row whose URL was rewritten behind its back.
    const corrupt = () =>
      new CorruptRowError("links", "original_url", "javascript:alert(1)", "an http or https URL");
    for (const headers of [{}, { "user-agent": "WhatsApp/2.23.20.0 A" }]) {
      storage.failNext("links.get", corrupt());
      const response = await get(`/${CODE}`, { headers });
      expect(response).toMatchObject({ status: 500, body: "Something went wrong.\n" });
      expect(response.headers).toMatchObject({
        "content-type": "text/plain; charset=utf-8",
        "cache-control": "no-store",
      });
      expect(response.headers.location).toBeUndefined();
    }
    expect(errors).toHaveLength(2);
    expect(String(errors[0])).toContain("corrupt row in links: column original_url");
    expect(await clicks()).toBe(0);
    expect((await get(`/${CODE}`)).status).toBe(302);
  });

  it("mounts as a web-standard handler too, with the host's peer address", async () => {
    const { app, clicks } = await linkWorld();
    const handler = createFetchHandler(app, { prefix: "/l", remoteAddress: () => "203.0.113.50" });
    const response = await handler(new Request(`https://t.example/l/${CODE}`));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(STORED);
    expect(await clicks()).toBe(1);
    const unknown = await handler(new Request("https://t.example/l/nothing"));
    expect(unknown.status).toBe(404);
  });
});
