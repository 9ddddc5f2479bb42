import { getSettings } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { consoleWorld } from "../test-support/console-world.js";

describe("settings page", () => {
  it("shows the defaults, applies the recommended limits in one click, and saves the form", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const page = await world.get(browser, "/settings");
    expect(page.status).toBe(200);
    expect(page.body).toContain('aria-current="page">Settings');
    expect(page.body).toContain("(the defaults)");
    expect(page.body).toMatch(/value="PREMIUM_RATE" checked/);
    expect(page.body).not.toMatch(/value="MOBILE" checked/);

    const recommended = await world.post(browser, "/settings/recommended");
    expect(recommended.status).toBe(303);
    expect(recommended.headers.location).toBe("/console/settings?notice=settings_recommended");
    expect((await getSettings(world.deps, actor))._unsafeUnwrap()).toMatchObject({
      allowed_countries: null,
      destination_limits: { per_hour: 10, per_day: 30 },
      prefix_limits: { per_hour: 100 },
      country_daily_limits: {},
    });
    const shown = await world.get(browser, "/settings?notice=settings_recommended");
    expect(shown.body).toContain("Recommended limits applied: 10 sends an hour and 30 a day");
    expect(shown.body).toContain('value="10" id="destination_per_hour"');

    const saved = await world.post(browser, "/settings", {
      allowed_countries: "gb, ie",
      blocked_number_types: ["PREMIUM_RATE", "VOIP"],
      destination_per_hour: "5",
      destination_per_day: "",
      prefix_per_hour: "50",
      country_daily_limits: "GB=500, ie: 20",
    });
    expect(saved.status).toBe(303);
    expect((await getSettings(world.deps, actor))._unsafeUnwrap()).toMatchObject({
      allowed_countries: ["GB", "IE"],
      blocked_number_types: ["PREMIUM_RATE", "VOIP"],
      destination_limits: { per_hour: 5, per_day: null },
      prefix_limits: { per_hour: 50 },
      country_daily_limits: { GB: 500, IE: 20 },
    });
    // Another organization's settings are its own.
    const theirs = { organizationId: world.otherOrg.id, apiKeyId: null };
    expect((await getSettings(world.deps, theirs))._unsafeUnwrap().updated_at).toBeNull();
  });

  it("refuses bad values beside their fields, keeping what was typed, and changes nothing", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const refused = await world.post(browser, "/settings", {
      allowed_countries: "GB, XX",
      blocked_number_types: ["PREMIUM_RATE"],
      destination_per_hour: "-3",
      destination_per_day: "ten",
      prefix_per_hour: "",
      country_daily_limits: "GB=500",
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('id="allowed_countries-error"');
    expect(refused.body).toContain("&quot;XX&quot; is not an ISO 3166-1 alpha-2 country code");
    expect(refused.body).toContain('id="destination_per_hour-error"');
    expect(refused.body).toContain('id="destination_per_day-error"');
    expect(refused.body).toContain('value="GB, XX"');
    expect(refused.body).toContain('value="ten"');
    expect((await getSettings(world.deps, actor))._unsafeUnwrap().updated_at).toBeNull();

    const noToken = await world.request("POST", "/settings/recommended", {
      cookie: browser.cookie,
      form: {},
    });
    expect(noToken.status).toBe(403);
    expect((await getSettings(world.deps, actor))._unsafeUnwrap().updated_at).toBeNull();
  });
});
