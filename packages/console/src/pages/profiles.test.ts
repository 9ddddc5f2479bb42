import { createProfile } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { consoleWorld } from "../test-support/console-world.js";

describe("profile pages", () => {
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
    expect(bad.body).toContain('id="q-error"');
    expect(bad.body).toContain("international phone number");
    expect(bad.body).toContain('value="12345"');
  });
});
