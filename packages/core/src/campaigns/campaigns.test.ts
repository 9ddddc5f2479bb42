import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import type { DomainError } from "../errors.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { memoryStorage } from "../testing/memory/index.js";
import { DEFAULT_TTL_SECONDS } from "./campaign-input.js";
import { createCampaign } from "./create-campaign.js";
import { getCampaign, listCampaigns } from "./get-campaign.js";
import { activateCampaign, deactivateCampaign, updateCampaign } from "./update-campaign.js";

function setup() {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock) };
  const actor: Actor = { organizationId: "org_a", apiKeyId: null };
  const other: Actor = { organizationId: "org_b", apiKeyId: null };
  const create = (input: Record<string, unknown>, who = actor) => createCampaign(deps, who, input);
  return { clock, storage, deps, actor, other, create };
}

const VALID = {
  name: "Login codes",
  channel: "viber",
  category: "otp",
  sender: "Tidings",
  template: "Your code is {{pin}}.",
};

const paths = (error: DomainError): string[] =>
  error.type === "validation" ? error.issues.map((issue) => issue.path).sort() : [];

describe("API campaigns (issue 3 item 1)", () => {
  it("a campaign gets a cmp_ id, is inactive by default and has the default TTL of one day", async () => {
    const { create } = setup();
    const campaign = (await create(VALID))._unsafeUnwrap();
    expect(campaign).toEqual({
      campaign_id: expect.stringMatching(/^cmp_[0-9a-z]{26}$/),
      name: "Login codes",
      channel: "viber",
      sms_fallback: false,
      sms_sender: null,
      track_links: false,
      sending_window: null,
      allowed_countries: null,
      category: "otp",
      sender: "Tidings",
      template: "Your code is {{pin}}.",
      ttl_seconds: DEFAULT_TTL_SECONDS,
      status: "inactive",
      created_at: "2026-05-01T12:00:00.000Z",
      updated_at: "2026-05-01T12:00:00.000Z",
    });
    expect(DEFAULT_TTL_SECONDS).toBe(86_400);
  });

  it("an OTP template must contain {{pin}}", async () => {
    const { create } = setup();
    const error = (
      await create({ ...VALID, template: "Your code is {{code}}." })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
    expect(error.type === "validation" && error.issues).toEqual([
      expect.objectContaining({ path: "template", rule: "pin_required" }),
    ]);
    const transactional = await create({ ...VALID, category: "transactional", template: "Hi" });
    expect(transactional.isOk()).toBe(true);
  });

  it("sms_fallback is for Viber campaigns only", async () => {
    const { create } = setup();
    const sms = await create({ ...VALID, channel: "sms", sms_fallback: true });
    expect(paths(sms._unsafeUnwrapErr())).toEqual(["sms_fallback"]);
    const viber = (await create({ ...VALID, sms_fallback: true }))._unsafeUnwrap();
    expect(viber.sms_fallback).toBe(true);
  });

  it("an SMS sender is an alphanumeric id of at most 11 characters or an E.164 number", async () => {
    const { create } = setup();
    const sms = { ...VALID, channel: "sms" };
    expect((await create({ ...sms, sender: "Tidings Co" }))._unsafeUnwrap().sender).toBe(
      "Tidings Co",
    );
    expect((await create({ ...sms, sender: "+1 415-555-2671" }))._unsafeUnwrap().sender).toBe(
      "+14155552671",
    );
    for (const sender of ["TidingsCompany", "12345", "Tidings!", "+1 000"]) {
      expect(paths((await create({ ...sms, sender }))._unsafeUnwrapErr())).toEqual(["sender"]);
    }
    // A Viber sender is a display name of up to 50 characters.
    expect((await create({ ...VALID, sender: "Tidings Customer Care!" })).isOk()).toBe(true);
  });

  it("every problem of a campaign body is listed at once, each with its path", async () => {
    const { create } = setup();
    const error = (
      await create({
        name: "",
        channel: "fax",
        category: "otp",
        sender: "x".repeat(51),
        template: "Code {{ 1pin }} {{pin",
        ttl_seconds: 29.5,
        status: "paused",
        colour: "red",
      })
    )._unsafeUnwrapErr();
    expect(paths(error)).toEqual([
      "channel",
      "colour",
      "name",
      "sender",
      "status",
      "template",
      "template",
      // Not whole and below the minimum: both rules are named.
      "ttl_seconds",
      "ttl_seconds",
    ]);
  });

  it("ttl_seconds is a whole number from 30 seconds to 14 days", async () => {
    const { create } = setup();
    for (const ttl of [30, 1_209_600]) {
      expect((await create({ ...VALID, ttl_seconds: ttl }))._unsafeUnwrap().ttl_seconds).toBe(ttl);
    }
    for (const ttl of [29, 1_209_601, 60.5, "60"]) {
      expect(paths((await create({ ...VALID, ttl_seconds: ttl }))._unsafeUnwrapErr())).toEqual([
        "ttl_seconds",
      ]);
    }
  });

  it("another organization's or a malformed campaign id is not found", async () => {
    const { create, deps, actor, other } = setup();
    const campaign = (await create(VALID))._unsafeUnwrap();
    expect((await getCampaign(deps, actor, campaign.campaign_id))._unsafeUnwrap()).toEqual(
      campaign,
    );
    for (const [who, id] of [
      [other, campaign.campaign_id],
      [actor, "cmp_nope"],
      [actor, "prf_01jd0000000000000000000000"],
    ] as const) {
      expect((await getCampaign(deps, who, id))._unsafeUnwrapErr()).toMatchObject({
        type: "not_found",
        code: "campaign_not_found",
      });
    }
    expect((await listCampaigns(deps, other))._unsafeUnwrap().data).toEqual([]);
  });

  it("activate and deactivate move the status and updated_at, and are idempotent", async () => {
    const { create, deps, actor, clock } = setup();
    const campaign = (await create(VALID))._unsafeUnwrap();
    clock.advance(1000);
    const active = (await activateCampaign(deps, actor, campaign.campaign_id))._unsafeUnwrap();
    expect(active).toMatchObject({ status: "active", updated_at: "2026-05-01T12:00:01.000Z" });
    clock.advance(1000);
    const again = (await activateCampaign(deps, actor, campaign.campaign_id))._unsafeUnwrap();
    expect(again.updated_at).toBe("2026-05-01T12:00:01.000Z");
    const inactive = (await deactivateCampaign(deps, actor, campaign.campaign_id))._unsafeUnwrap();
    expect(inactive).toMatchObject({ status: "inactive", updated_at: "2026-05-01T12:00:02.000Z" });
  });

  it("an update changes name, sender, template, TTL and fallback under the stored channel's rules", async () => {
    const { create, deps, actor } = setup();
    const campaign = (
      await create({ ...VALID, channel: "sms", sender: "Tidings" })
    )._unsafeUnwrap();
    const update = (input: unknown) => updateCampaign(deps, actor, campaign.campaign_id, input);
    const updated = (
      await update({ name: "Codes", sender: "+14155552671", template: "{{pin}}!", ttl_seconds: 60 })
    )._unsafeUnwrap();
    expect(updated).toMatchObject({
      name: "Codes",
      sender: "+14155552671",
      template: "{{pin}}!",
      ttl_seconds: 60,
    });
    const refused = (
      await update({ sender: "Much Too Long Sender", template: "no pin", sms_fallback: true })
    )._unsafeUnwrapErr();
    expect(paths(refused)).toEqual(["sender", "sms_fallback", "template"]);
    const stored = (await getCampaign(deps, actor, campaign.campaign_id))._unsafeUnwrap();
    expect(stored).toEqual(updated);
  });

  it("channel and category change only while the campaign is inactive (409 campaign_active)", async () => {
    const { create, deps, actor } = setup();
    const campaign = (await create({ ...VALID, status: "active" }))._unsafeUnwrap();
    const update = (input: unknown) => updateCampaign(deps, actor, campaign.campaign_id, input);
    for (const patch of [{ channel: "sms" }, { category: "transactional" }]) {
      expect((await update(patch))._unsafeUnwrapErr()).toMatchObject({
        type: "conflict",
        code: "campaign_active",
      });
    }
    // Naming the values it already has is no change.
    expect((await update({ channel: "viber", category: "otp", name: "Same" })).isOk()).toBe(true);
    await deactivateCampaign(deps, actor, campaign.campaign_id);
    const moved = (await update({ category: "transactional" }))._unsafeUnwrap();
    expect(moved).toMatchObject({ category: "transactional", channel: "viber" });
  });

  it("a new channel or category is checked against the stored sender and template", async () => {
    const { create, deps, actor } = setup();
    const campaign = (
      await create({
        ...VALID,
        category: "transactional",
        sender: "Tidings Customer Care",
        template: "Hello",
        sms_fallback: true,
      })
    )._unsafeUnwrap();
    const update = (input: unknown) => updateCampaign(deps, actor, campaign.campaign_id, input);
    // An OTP campaign needs {{pin}} in the template it keeps.
    expect(paths((await update({ category: "otp" }))._unsafeUnwrapErr())).toEqual(["template"]);
    // An SMS campaign needs an SMS sender; the Viber display name is not one.
    expect(paths((await update({ channel: "sms" }))._unsafeUnwrapErr())).toEqual(["sender"]);
    expect(
      paths(
        (
          await update({ channel: "sms", sender: "Tidings", sms_fallback: true })
        )._unsafeUnwrapErr(),
      ),
    ).toEqual(["sms_fallback"]);
    // Leaving Viber drops the fallback, which only Viber has.
    const sms = (await update({ channel: "sms", sender: "Tidings" }))._unsafeUnwrap();
    expect(sms).toMatchObject({ channel: "sms", sender: "Tidings", sms_fallback: false });
    const otp = (await update({ category: "otp", template: "Code {{pin}}" }))._unsafeUnwrap();
    expect(otp).toMatchObject({ category: "otp", template: "Code {{pin}}" });
  });

  it("lists campaigns newest first, a page at a time, by status", async () => {
    const { create, deps, actor, clock } = setup();
    const made = [];
    for (const status of ["active", "inactive", "active"]) {
      made.push((await create({ ...VALID, status }))._unsafeUnwrap());
      clock.advance(1);
    }
    const ids = made.map((c) => c.campaign_id).reverse();
    const first = (await listCampaigns(deps, actor, { limit: "2" }))._unsafeUnwrap();
    expect(first.data.map((c) => c.campaign_id)).toEqual(ids.slice(0, 2));
    expect(first.meta.has_more).toBe(true);
    const cursor = first.meta.next_cursor ?? "";
    const second = (await listCampaigns(deps, actor, { limit: "2", cursor }))._unsafeUnwrap();
    expect(second).toEqual({
      data: [made[0]],
      meta: { has_more: false, next_cursor: null },
    });
    const active = (await listCampaigns(deps, actor, { status: "active" }))._unsafeUnwrap();
    expect(active.data.map((c) => c.campaign_id)).toEqual([ids[0], ids[2]]);
    for (const [query, path] of [
      [{ status: "paused" }, "status"],
      [{ limit: "0" }, "limit"],
      [{ limit: "101" }, "limit"],
      [{ colour: "red" }, "colour"],
    ] as const) {
      expect(paths((await listCampaigns(deps, actor, query))._unsafeUnwrapErr())).toEqual([path]);
    }
    expect((await listCampaigns(deps, actor, { cursor: "nope" }))._unsafeUnwrapErr()).toMatchObject(
      { code: "invalid_cursor" },
    );
  });
});
