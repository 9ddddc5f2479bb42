import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import { suppressFromProvider } from "../inbound/opted-out.js";
import { addSuppression, listSuppressions, removeSuppression } from "../inbound/suppressions.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { seedOrganization, seedWebhook } from "../testing/contract/seed.js";
import { readableSecretBox } from "../testing/fakes.js";
import { memoryStorage } from "../testing/memory/index.js";
import { createProfile } from "./create-profile.js";
import { importProfiles } from "./import-profiles.js";
import { listProfiles } from "./list-profiles.js";
import { updateProfile } from "./update-profile.js";

const PHONE = "+14155552671";

async function setup(topics: string[] = ["profile.consent_changed"]) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const org = await seedOrganization(storage);
  await seedWebhook(storage, org, { topics: topics as never });
  const actor: Actor = { organizationId: org.organization.id, apiKeyId: org.apiKey.id };
  /** The consent events sent so far, oldest first: topic and data. */
  const events = async () =>
    (await storage.deliveries.listPage({ organizationId: actor.organizationId, limit: 100 }))
      .map((d) => JSON.parse(d.payload) as { topic: string; data: Record<string, unknown> })
      .filter((p) => p.topic === "profile.consent_changed")
      .reverse();
  return { clock, storage, deps, actor, events };
}

describe("profile.consent_changed for every consent change", () => {
  it("create with consent true sends one event per channel given, in the inbound body", async () => {
    const { deps, actor, events } = await setup();
    const profile = (
      await createProfile(deps, actor, { phone_number: PHONE, sms_marketing_consent: true })
    )._unsafeUnwrap();
    expect(await events()).toEqual([
      {
        id: expect.any(String),
        topic: "profile.consent_changed",
        created_at: "2026-05-01T12:00:00.000Z",
        data: {
          public_id: profile.public_id,
          phone_number: PHONE,
          channel: "sms",
          marketing_consent: true,
          suppressed: false,
          source: "api",
          keyword: null,
          provider: null,
          note: null,
          changed_at: "2026-05-01T12:00:00.000Z",
        },
      },
    ]);
  });

  it("create without consent and an update that leaves consent alone send nothing", async () => {
    const { deps, actor, events } = await setup();
    const profile = (await createProfile(deps, actor, { phone_number: PHONE }))._unsafeUnwrap();
    (await updateProfile(deps, actor, profile.public_id, { first_name: "Ada" }))._unsafeUnwrap();
    expect(await events()).toEqual([]);
  });

  it("PATCH sends one event per changed flag, saying whether the number is suppressed", async () => {
    const { deps, actor, events } = await setup();
    const profile = (await createProfile(deps, actor, { phone_number: PHONE }))._unsafeUnwrap();
    (await addSuppression(deps, actor, { channel: "sms", phone_number: PHONE }))._unsafeUnwrap();
    const before = (await events()).length;
    (
      await updateProfile(deps, actor, profile.public_id, {
        viber_marketing_consent: true,
        sms_marketing_consent: true,
      })
    )._unsafeUnwrap();
    const sent = (await events()).slice(before).map((e) => e.data);
    expect(sent).toEqual([
      expect.objectContaining({ channel: "viber", marketing_consent: true, suppressed: false }),
      expect.objectContaining({ channel: "sms", marketing_consent: true, suppressed: true }),
    ]);
    expect(sent.every((d) => d.source === "api" && d.public_id === profile.public_id)).toBe(true);
  });

  it("an import sends the event with source import, for new and updated profiles", async () => {
    const { deps, actor, events } = await setup();
    const other = "+14155552672";
    (await createProfile(deps, actor, { phone_number: other }))._unsafeUnwrap();
    const summary = (
      await importProfiles(
        deps,
        { ...actor, apiKeyId: null },
        [
          { row: 1, data: { phone_number: PHONE, viber_marketing_consent: true } },
          { row: 2, data: { phone_number: other, sms_marketing_consent: true } },
        ],
        { source: "import" },
      )
    )._unsafeUnwrap();
    expect(summary).toMatchObject({ created: 1, updated: 1 });
    const sent = (await events()).map((e) => e.data);
    expect(sent).toHaveLength(2);
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ phone_number: PHONE, channel: "viber", source: "import" }),
        expect.objectContaining({ phone_number: other, channel: "sms", source: "import" }),
      ]),
    );
  });

  it("a number suppressed before an import brings its profile is listed with it afterwards", async () => {
    const { deps, actor } = await setup();
    const telemetry = { messageSent: () => {}, suppressionAdded: () => {} };
    const other = "+14155552672";
    for (const phone_number of [PHONE, other]) {
      const added = await addSuppression({ ...deps, telemetry }, actor, {
        channel: "sms",
        phone_number,
      });
      added._unsafeUnwrap();
    }
    const numbers = async () =>
      (await listSuppressions(deps, actor, {}))._unsafeUnwrap().data.map((x) => x.phone_number);
    expect(await numbers()).toEqual([null, null]);
    const rows = [{ row: 1, data: { phone_number: PHONE } }];
    (await importProfiles(deps, actor, rows, { source: "import" }))._unsafeUnwrap();
    expect(await numbers()).toEqual([null, PHONE]);
  });

  it("goes to no subscription that does not take the topic", async () => {
    const { deps, actor, storage } = await setup(["message.delivered"]);
    (
      await createProfile(deps, actor, { phone_number: PHONE, sms_marketing_consent: true })
    )._unsafeUnwrap();
    expect(
      await storage.deliveries.listPage({ organizationId: actor.organizationId, limit: 10 }),
    ).toEqual([]);
  });

  it("lifting a person's suppression keeps consent off and puts the note in the event", async () => {
    const { deps, actor, events } = await setup();
    (
      await createProfile(deps, actor, { phone_number: PHONE, sms_marketing_consent: true })
    )._unsafeUnwrap();
    (await addSuppression(deps, actor, { channel: "sms", phone_number: PHONE }))._unsafeUnwrap();
    (
      await removeSuppression(deps, actor, {
        channel: "sms",
        phone_number: PHONE,
        note: "asked again by phone",
      })
    )._unsafeUnwrap();
    const last = (await events()).at(-1)?.data;
    expect(last).toMatchObject({
      channel: "sms",
      marketing_consent: false,
      suppressed: false,
      source: "api",
      note: "asked again by phone",
    });
  });
});

describe("suppressed on every profile answer", () => {
  it("create, update, get and list show it; a list reads the page's suppressions once", async () => {
    const { deps, actor, storage } = await setup();
    (await addSuppression(deps, actor, { channel: "sms", phone_number: PHONE }))._unsafeUnwrap();
    const created = (await createProfile(deps, actor, { phone_number: PHONE }))._unsafeUnwrap();
    expect(created.suppressed).toEqual({ viber: false, sms: true });
    const other = (
      await createProfile(deps, actor, { phone_number: "+14155552672" })
    )._unsafeUnwrap();
    expect(other.suppressed).toEqual({ viber: false, sms: false });
    const updated = (
      await updateProfile(deps, actor, created.public_id, { first_name: "Ada" })
    )._unsafeUnwrap();
    expect(updated.suppressed).toEqual({ viber: false, sms: true });

    let reads = 0;
    const counting = {
      ...deps,
      storage: {
        ...storage,
        suppressions: {
          ...storage.suppressions,
          forNumber: (...args: Parameters<typeof storage.suppressions.forNumber>) => {
            reads += 1;
            return storage.suppressions.forNumber(...args);
          },
          forNumbers: (...args: Parameters<typeof storage.suppressions.forNumbers>) => {
            reads += 1;
            return storage.suppressions.forNumbers(...args);
          },
        },
      },
    };
    const page = (await listProfiles(counting, actor, {}))._unsafeUnwrap();
    const shown = new Map(page.data.map((p) => [p.public_id, p.suppressed]));
    expect(shown.get(created.public_id)).toEqual({ viber: false, sms: true });
    expect(shown.get(other.public_id)).toEqual({ viber: false, sms: false });
    expect([...shown.values()].every((s) => s !== undefined)).toBe(true);
    expect(reads).toBe(1);
  });
});

describe("suppressions are counted for metrics whatever their source", () => {
  it("the API and a provider's refusal each report their source, once per suppression", async () => {
    const { deps, actor } = await setup();
    const counted: string[] = [];
    const telemetry = { messageSent: () => {}, suppressionAdded: (s: string) => counted.push(s) };
    const withTelemetry = { ...deps, telemetry };
    const add = () => addSuppression(withTelemetry, actor, { channel: "sms", phone_number: PHONE });
    (await add())._unsafeUnwrap();
    (await add())._unsafeUnwrap();
    const refusal = {
      code: "upstream_rejected",
      message: "x",
      provider: "twilio",
      provider_code: "21610",
    };
    const message = { organizationId: actor.organizationId, phoneNumber: "+14155552673" };
    await suppressFromProvider(withTelemetry, message, "sms", refusal);
    await suppressFromProvider(withTelemetry, message, "sms", refusal);
    expect(counted).toEqual(["api", "provider"]);
  });
});
