import { describe, expect, it } from "vitest";
import { consoleWorld } from "./test-support/console-world.js";

// What a first visit runs into: the browser's icon request, a page that does not exist, and a
// webhook form that says which addresses this server takes.

describe("a first visit to the console", () => {
  it("names an icon that it serves, without a session", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const page = await world.get(browser, "/campaigns");
    expect(page.body).toContain(
      '<link rel="icon" type="image/svg+xml" href="/console/assets/icon.svg"/>',
    );
    const icon = await world.get(null, "/assets/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(icon.body).toMatch(/^<svg [^>]*><title>Tidings<\/title>/);
  });

  it("marks no section of the navigation current on a page that does not exist", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const missing = await world.get(browser, "/no-such-page");
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('aria-current="page"');
    // Under a section, the section stays marked; the Overview is marked only on itself.
    const unknownCampaign = await world.get(browser, "/campaigns/cmp_0000000000000000000000000");
    expect(unknownCampaign.status).toBe(404);
    expect(unknownCampaign.body).toMatch(/aria-current="page"[^>]*>Campaigns</);
    expect((await world.get(browser, "/")).body).toMatch(/aria-current="page"[^>]*>Overview</);
  });

  it("says which webhook addresses the server takes: https, and http in development mode", async () => {
    const strict = await consoleWorld();
    const page = await strict.get(await strict.signIn(), "/webhooks");
    expect(page.body).toContain("An https address that receives signed POSTs.");
    const dev = await consoleWorld({ devMode: true });
    const devPage = await dev.get(await dev.signIn(), "/webhooks");
    expect(devPage.body).not.toContain("An https address that receives");
    expect(devPage.body).toContain("An https or http address");
  });
});
