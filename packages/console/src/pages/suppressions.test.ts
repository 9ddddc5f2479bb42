import {
  createProfile,
  getConsentHistory,
  getProfile,
  inboundSink,
  listSuppressions,
} from "@tidings/core";
import { describe, expect, it } from "vitest";
import { consoleWorld, HOSTILE } from "../test-support/console-world.js";

const PHONE = "+14155550123";

describe("suppressions page", () => {
  it("adds a suppression from the form: consent off, listed with its note, and removed again", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const created = await createProfile(world.deps, actor, {
      phone_number: PHONE,
      sms_marketing_consent: true,
    });
    const id = created._unsafeUnwrap().public_id;

    const empty = await world.get(browser, "/suppressions");
    expect(empty.status).toBe(200);
    expect(empty.body).toContain("No suppressions yet.");
    expect(empty.body).toContain('aria-current="page">Suppressions');

    const added = await world.post(browser, "/suppressions", {
      channel: "sms",
      phone_number: "+1 415 555 0123",
      note: HOSTILE,
    });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe(
      `/console/suppressions?phone_number=${encodeURIComponent(PHONE)}&notice=suppression_added`,
    );
    const profile = (await getProfile(world.deps, actor, id))._unsafeUnwrap();
    expect(profile.sms_marketing_consent).toBe(false);
    expect(profile.suppressed).toEqual({ viber: false, sms: true });

    // Unfiltered, its profile gives the number, so it shows with Remove; filtered by it, too.
    const all = await world.get(browser, "/suppressions");
    expect(all.body).toContain(PHONE);
    expect(all.body).toContain('action="/console/suppressions/remove"');
    expect(all.body).not.toContain("Filter by its number to remove");
    expect(all.body).not.toContain(HOSTILE);
    expect(all.body).toContain("&lt;script>");
    const byNumber = await world.get(
      browser,
      `/suppressions?phone_number=${encodeURIComponent(PHONE)}`,
    );
    expect(byNumber.body).toContain(PHONE);
    expect(byNumber.body).toContain("API or console");
    expect(byNumber.body).toContain('action="/console/suppressions/remove"');
    // An API one needs no note.
    expect(byNumber.body).not.toContain("Why (required)");

    // The profile shows the suppression beside its consent, and the change's source.
    const page = await world.get(browser, `/profiles/${id}`);
    expect(page.body).toContain("Suppressed");
    expect(page.body).toContain(
      `/console/suppressions?channel=sms&amp;phone_number=${encodeURIComponent(PHONE)}`,
    );
    // Added in the console, recorded as the console's: the suppression itself says api.
    expect(page.body).toMatch(/<td>Yes<\/td><td>No<\/td><td>Console<\/td>/);
    const history = (await getConsentHistory(world.deps, actor, id))._unsafeUnwrap();
    expect(history.map((change) => change.source)).toEqual(["api", "console"]);

    const removed = await world.post(browser, "/suppressions/remove", {
      channel: "sms",
      phone_number: PHONE,
    });
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toContain("notice=suppression_removed");
    expect((await getProfile(world.deps, actor, id))._unsafeUnwrap().suppressed.sms).toBe(false);
    const after = await listSuppressions(world.deps, actor, {});
    expect(after._unsafeUnwrap().data).toEqual([]);
  });

  it("refuses a bad number beside its field, keeping what was typed, and filters by channel", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const bad = await world.post(browser, "/suppressions", {
      channel: "sms",
      phone_number: "12345",
      note: "asked by phone",
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('id="add-phone_number-error"');
    expect(bad.body).toContain('value="12345"');
    expect(bad.body).toContain('value="asked by phone"');
    expect((await listSuppressions(world.deps, actor, {}))._unsafeUnwrap().data).toEqual([]);

    for (const [channel, phone] of [
      ["sms", "+14155550101"],
      ["viber", "+14155550102"],
    ] as const) {
      await world.post(browser, "/suppressions", { channel, phone_number: phone });
    }
    const viber = await world.get(browser, "/suppressions?channel=viber");
    expect(viber.status).toBe(200);
    expect(viber.body.match(/<tr>/g)?.length).toBe(1 + 1);
    expect(viber.body).toContain("<td>viber</td>");
    expect(viber.body).not.toContain("<td>sms</td>");
    const badFilter = await world.get(browser, "/suppressions?channel=fax");
    expect(badFilter.status).toBe(400);
    expect(badFilter.body).toContain('id="channel-error"');
  });

  it("refuses a POST without the CSRF token: 403, nothing added or removed", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const form = { channel: "sms", phone_number: PHONE };
    const refused = await world.request("POST", "/suppressions", {
      cookie: browser.cookie,
      form,
    });
    expect(refused.status).toBe(403);
    expect((await listSuppressions(world.deps, actor, {}))._unsafeUnwrap().data).toEqual([]);
    await world.post(browser, "/suppressions", form);
    const remove = await world.request("POST", "/suppressions/remove", {
      cookie: browser.cookie,
      form: { ...form, csrf_token: "wrong" },
    });
    expect(remove.status).toBe(403);
    expect((await listSuppressions(world.deps, actor, {}))._unsafeUnwrap().data).toHaveLength(1);
  });

  it("asks for a note to lift a STOP, shows the inbound message and the history's sources", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const actor = { organizationId: world.org.id, apiKeyId: null };
    const id = (
      await createProfile(world.deps, actor, { phone_number: PHONE, sms_marketing_consent: true })
    )._unsafeUnwrap().public_id;
    await world.deps.storage.senders.assign({
      organizationId: world.org.id,
      channel: "sms",
      sender: "+14155559999",
      createdAt: new Date(world.clock.now()).toISOString(),
    });
    const outcome = await inboundSink(world.deps).receive({
      provider: "twilio",
      providerMessageId: "SM1",
      channel: "sms",
      from: PHONE,
      to: "+14155559999",
      text: "Stop please",
      receivedAt: null,
      providerKeywordClass: null,
    });
    expect(outcome).toBe("stored");

    const profile = await world.get(browser, `/profiles/${id}`);
    expect(profile.body).toContain("Inbound messages");
    expect(profile.body).toContain("Stop please");
    expect(profile.body).toContain("Opt-out");
    expect(profile.body).toContain("Inbound reply");
    expect(profile.body).toContain("Suppressed");

    const path = `/suppressions?phone_number=${encodeURIComponent(PHONE)}`;
    const listed = await world.get(browser, path);
    expect(listed.body).toContain("Inbound (the person replied)");
    expect(listed.body).toContain("STOP");
    expect(listed.body).toContain("twilio");
    expect(listed.body).toContain("Why (required)");

    const noNote = await world.post(browser, "/suppressions/remove", {
      channel: "sms",
      phone_number: PHONE,
      note: "",
    });
    expect(noNote.status).toBe(400);
    expect(noNote.body).toContain('id="remove-0-note-error"');
    expect(noNote.body).toContain("Is required to lift a suppression");
    expect((await getProfile(world.deps, actor, id))._unsafeUnwrap().suppressed.sms).toBe(true);

    const lifted = await world.post(browser, "/suppressions/remove", {
      channel: "sms",
      phone_number: PHONE,
      note: "Asked again by e-mail",
    });
    expect(lifted.status).toBe(303);
    expect((await getProfile(world.deps, actor, id))._unsafeUnwrap().suppressed.sms).toBe(false);
    const history = (await getConsentHistory(world.deps, actor, id))._unsafeUnwrap();
    // The STOP turned consent off; the lift, made in the console, leaves it off and is
    // written to the history with its note.
    expect(history.map((c) => [c.source, c.old_value, c.new_value, c.note]).slice(-2)).toEqual([
      ["inbound", true, false, null],
      ["console", false, false, "Asked again by e-mail"],
    ]);
    const shown = await world.get(browser, `/profiles/${id}`);
    expect(shown.body).toContain("Asked again by e-mail");

    const gone = await world.post(browser, "/suppressions/remove", {
      channel: "sms",
      phone_number: PHONE,
      note: "again",
    });
    expect(gone.status).toBe(404);
  });

  it("never shows another organization's suppressions", async () => {
    const world = await consoleWorld();
    const theirs = await world.signIn(world.otherOrg.id);
    await world.post(theirs, "/suppressions", { channel: "sms", phone_number: PHONE });
    const browser = await world.signIn();
    const mine = await world.get(
      browser,
      `/suppressions?phone_number=${encodeURIComponent(PHONE)}`,
    );
    expect(mine.body).toContain("No suppression matches.");
    const remove = await world.post(browser, "/suppressions/remove", {
      channel: "sms",
      phone_number: PHONE,
    });
    expect(remove.status).toBe(404);
    const other = { organizationId: world.otherOrg.id, apiKeyId: null };
    expect((await listSuppressions(world.deps, other, {}))._unsafeUnwrap().data).toHaveLength(1);
  });
});
