import { createProfile, getProfile } from "@tidings/core";
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
    expect(profile.body).toContain("Not set: the zones of the number's prefix decide");
    const zoned = await createProfile(world.deps, actor, {
      phone_number: "+14155559999",
      time_zone: "America/Chicago",
    });
    const zonedPage = await world.get(browser, `/profiles/${zoned._unsafeUnwrap().public_id}`);
    expect(zonedPage.body).toMatch(/Time zone<\/dt>\s*<dd[^>]*>America\/Chicago/);
    const bad = await world.get(browser, "/profiles?q=12345");
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('id="q-error"');
    expect(bad.body).toContain("international phone number");
    expect(bad.body).toContain('value="12345"');
  });

  it("erases a profile after a confirm step that names what goes and what stays", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const created = await createProfile(world.deps, actor, {
      phone_number: "+14155550177",
      email: "ada@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
      sms_marketing_consent: true,
      attributes: { tier: "gold" },
    });
    const id = created._unsafeUnwrap().public_id;
    const profile = await world.get(browser, `/profiles/${id}`);
    expect(profile.body).toContain(`href="/console/profiles/${id}/erase"`);

    const confirm = await world.get(browser, `/profiles/${id}/erase`);
    expect(confirm.status).toBe(200);
    for (const shown of [
      "+14155550177",
      "ada@example.com",
      "Ada Lovelace",
      "1 attribute",
      "0 messages",
      "consent history",
      "cannot be undone",
    ]) {
      expect(confirm.body).toContain(shown);
    }
    // Nothing is erased by looking.
    expect((await getProfile(world.deps, actor, id)).isOk()).toBe(true);

    const erased = await world.post(browser, `/profiles/${id}/erase`);
    expect(erased.status).toBe(303);
    expect(erased.headers.location).toContain("notice=profile_erased");
    expect((await getProfile(world.deps, actor, id)).isErr()).toBe(true);
    expect((await world.get(browser, `/profiles/${id}/erase`)).status).toBe(404);
    const other = await world.get(browser, `/profiles/prf_00000000000000000000000000/erase`);
    expect(other.status).toBe(404);
  });
});
