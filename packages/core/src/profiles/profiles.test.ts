import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { readableSecretBox } from "../testing/fakes.js";
import { memoryStorage } from "../testing/memory/index.js";
import { getConsentHistory } from "./consent-history.js";
import {
  addProfilesToList,
  listContactListMembers,
  listContactLists,
  listProfileContactLists,
  removeProfileFromList,
} from "./contact-lists.js";
import { createProfile } from "./create-profile.js";
import { deleteProfile } from "./delete-profile.js";
import { getProfile } from "./get-profile.js";
import { listProfiles } from "./list-profiles.js";
import { updateProfile } from "./update-profile.js";

function setup() {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const actor: Actor = { organizationId: "org_a", apiKeyId: "key_a" };
  const other: Actor = { organizationId: "org_b", apiKeyId: "key_b" };
  const create = (input: Record<string, unknown>, who = actor) => createProfile(deps, who, input);
  return { clock, storage, deps, actor, other, create };
}

const PHONE = "+14155552671";

describe("profile rules (docs/api.md Profiles, docs/decisions.md)", () => {
  it("create answers the whole Profile object, every field present, defaults applied", async () => {
    const { create } = setup();
    const profile = (await create({ phone_number: "+1 415-555-2671" }))._unsafeUnwrap();
    expect(profile).toEqual({
      public_id: expect.stringMatching(/^prf_[0-9a-z]{26}$/),
      phone_number: PHONE,
      email: null,
      first_name: null,
      last_name: null,
      full_name: null,
      viber_marketing_consent: false,
      sms_marketing_consent: false,
      attributes: {},
      source: "api",
      time_zone: null,
      created_at: "2026-05-01T12:00:00.000Z",
      updated_at: "2026-05-01T12:00:00.000Z",
      suppressed: { viber: false, sms: false },
    });
  });

  it("phone_number is required and must be E.164; the issue names the field", async () => {
    const { create } = setup();
    for (const input of [
      {},
      { phone_number: null },
      { phone_number: "4155552671" },
      { phone_number: 14155552671 },
    ]) {
      const error = (await create(input))._unsafeUnwrapErr();
      expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
      expect(error.type === "validation" && error.issues.map((issue) => issue.path)).toEqual([
        "phone_number",
      ]);
    }
  });

  it("phone numbers are unique within an organization (409) but not across organizations", async () => {
    const { create, other } = setup();
    await create({ phone_number: PHONE });
    expect((await create({ phone_number: "+1 (415) 555 2671" }))._unsafeUnwrapErr()).toMatchObject({
      type: "conflict",
      code: "phone_number_taken",
    });
    expect((await create({ phone_number: PHONE }, other)).isOk()).toBe(true);
  });

  it("names are trimmed and 2-100 code points long; full_name joins the present names", async () => {
    const { create } = setup();
    const ok = (
      await create({ phone_number: PHONE, first_name: "  Jo ", last_name: "😀😀" })
    )._unsafeUnwrap();
    expect(ok).toMatchObject({ first_name: "Jo", last_name: "😀😀", full_name: "Jo 😀😀" });
    const only = (await create({ phone_number: "+14155552672", last_name: "Li" }))._unsafeUnwrap();
    expect(only.full_name).toBe("Li");
    const error = (
      await create({ phone_number: "+14155552673", first_name: "J", last_name: "x".repeat(101) })
    )._unsafeUnwrapErr();
    expect(error.type === "validation" && error.issues.map((issue) => issue.path).sort()).toEqual([
      "first_name",
      "last_name",
    ]);
  });

  it("every problem of a body is reported, each with its path", async () => {
    const { create } = setup();
    const error = (
      await create({
        phone_number: "nope",
        email: "not-an-email",
        first_name: "J",
        viber_marketing_consent: "yes",
        extra: 1,
      })
    )._unsafeUnwrapErr();
    expect(error.type === "validation" && error.issues.map((issue) => issue.path).sort()).toEqual([
      "email",
      "extra",
      "first_name",
      "phone_number",
      "viber_marketing_consent",
    ]);
  });

  it("email is validated, stored as given and matched case-insensitively; it is not unique", async () => {
    const { create, deps, actor } = setup();
    await create({ phone_number: PHONE, email: "Ann@Example.com" });
    await create({ phone_number: "+14155552672", email: "ann@example.com" });
    const page = (await listProfiles(deps, actor, { email: "ANN@example.COM" }))._unsafeUnwrap();
    expect(page.data.map((profile) => profile.email)).toEqual([
      "Ann@Example.com",
      "ann@example.com",
    ]);
  });

  it("custom attributes: at most 50 keys of [A-Za-z0-9_]{1,64} to string, number or boolean", async () => {
    const { create } = setup();
    const good = (
      await create({ phone_number: PHONE, attributes: { tier: "gold", visits: 3, vip: true } })
    )._unsafeUnwrap();
    expect(good.attributes).toEqual({ tier: "gold", visits: 3, vip: true });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    for (const attributes of [
      many,
      { "bad-key": 1 },
      { nested: { a: 1 } },
      { long: "x".repeat(1001) },
      [],
    ]) {
      const error = (await create({ phone_number: "+14155552672", attributes }))._unsafeUnwrapErr();
      expect(error.type === "validation" && error.issues[0]?.path.startsWith("attributes")).toBe(
        true,
      );
    }
  });

  it("custom attributes: strings count code points; a key no object can hold is refused, never dropped", async () => {
    const { create } = setup();
    const emoji = (
      await create({ phone_number: PHONE, attributes: { s: "😀".repeat(1000) } })
    )._unsafeUnwrap();
    expect(emoji.attributes).toEqual({ s: "😀".repeat(1000) });
    for (const [attributes, path] of [
      [{ s: "😀".repeat(1001) }, "attributes.s"],
      [{ constructor: "v", ok: "y" }, "attributes.constructor"],
      [JSON.parse('{"__proto__": "x", "ok": "y"}'), "attributes.__proto__"],
      [{ prototype: 1 }, "attributes.prototype"],
    ] as const) {
      const error = (await create({ phone_number: "+14155552672", attributes }))._unsafeUnwrapErr();
      expect(error.type === "validation" && error.issues.map((i) => i.path)).toEqual([path]);
    }
  });

  it("GET of an unknown, malformed, deleted or other organization's id is 404", async () => {
    const { create, deps, actor, other } = setup();
    const profile = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    expect((await getProfile(deps, actor, profile.public_id))._unsafeUnwrap()).toEqual({
      ...profile,
      suppressed: { viber: false, sms: false },
    });
    expect((await getProfile(deps, other, profile.public_id))._unsafeUnwrapErr().type).toBe(
      "not_found",
    );
    expect((await getProfile(deps, actor, "prf_nope"))._unsafeUnwrapErr().type).toBe("not_found");
    await deleteProfile(deps, actor, profile.public_id);
    expect((await getProfile(deps, actor, profile.public_id))._unsafeUnwrapErr()).toMatchObject({
      code: "profile_not_found",
    });
  });

  it("PATCH keeps omitted fields, clears email and names with null, merges attributes", async () => {
    const { create, deps, actor, clock } = setup();
    const before = (
      await create({
        phone_number: PHONE,
        email: "a@b.co",
        first_name: "Ann",
        last_name: "Lee",
        attributes: { a: 1, b: 2 },
      })
    )._unsafeUnwrap();
    clock.advance(1000);
    const after = (
      await updateProfile(deps, actor, before.public_id, {
        last_name: null,
        email: null,
        attributes: { a: null, c: "x" },
      })
    )._unsafeUnwrap();
    expect(after).toMatchObject({
      phone_number: PHONE,
      first_name: "Ann",
      last_name: null,
      email: null,
      full_name: "Ann",
      attributes: { b: 2, c: "x" },
      created_at: before.created_at,
      updated_at: "2026-05-01T12:00:01.000Z",
    });
  });

  it("create opens a transaction only when consent rows go with the profile", async () => {
    const { storage, deps, actor } = setup();
    let transactions = 0;
    const counting = {
      ...storage,
      transaction: ((fn) => {
        transactions += 1;
        return storage.transaction(fn);
      }) as typeof storage.transaction,
    };
    const create = (input: Record<string, unknown>) =>
      createProfile({ ...deps, storage: counting }, actor, input);
    const plain = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    expect(transactions).toBe(0);
    expect((await getConsentHistory(deps, actor, plain.public_id))._unsafeUnwrap()).toEqual([]);
    const consenting = (
      await create({ phone_number: "+14155552672", sms_marketing_consent: true })
    )._unsafeUnwrap();
    expect(transactions).toBe(1);
    const history = (await getConsentHistory(deps, actor, consenting.public_id))._unsafeUnwrap();
    expect(history.map((change) => [change.channel, change.new_value])).toEqual([["sms", true]]);
    // Either way a taken number is a conflict and writes nothing.
    const listed = async () => (await listProfiles(deps, actor, {}))._unsafeUnwrap().data.length;
    const before = await listed();
    for (const input of [{}, { viber_marketing_consent: true }]) {
      const clash = await create({ phone_number: PHONE, ...input });
      expect(clash._unsafeUnwrapErr().code).toBe("phone_number_taken");
    }
    expect(await listed()).toBe(before);
    expect((await getConsentHistory(deps, actor, plain.public_id))._unsafeUnwrap()).toEqual([]);
  });

  it("PATCH refuses null for phone_number and both consent flags", async () => {
    const { create, deps, actor } = setup();
    const profile = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    const error = (
      await updateProfile(deps, actor, profile.public_id, {
        phone_number: null,
        viber_marketing_consent: null,
        sms_marketing_consent: null,
      })
    )._unsafeUnwrapErr();
    expect(error.type === "validation" && error.issues.map((issue) => issue.path).sort()).toEqual([
      "phone_number",
      "sms_marketing_consent",
      "viber_marketing_consent",
    ]);
    expect(error.type === "validation" && error.issues[0]?.message).toMatch(/cannot be null/);
  });

  it("PATCH that changes nothing does not move updated_at; a change does", async () => {
    const { create, deps, actor, clock } = setup();
    const profile = (await create({ phone_number: PHONE, first_name: "Ann" }))._unsafeUnwrap();
    clock.advance(5000);
    expect(
      (await updateProfile(deps, actor, profile.public_id, { first_name: "Ann" }))._unsafeUnwrap()
        .updated_at,
    ).toBe(profile.updated_at);
    expect(
      (await updateProfile(deps, actor, profile.public_id, { first_name: "Bo" }))._unsafeUnwrap()
        .updated_at,
    ).toBe("2026-05-01T12:00:05.000Z");
  });

  it("PATCH to a phone number another profile holds is 409 and changes nothing", async () => {
    const { create, deps, actor, storage } = setup();
    await create({ phone_number: PHONE });
    const second = (await create({ phone_number: "+14155552672" }))._unsafeUnwrap();
    expect(
      (
        await updateProfile(deps, actor, second.public_id, { phone_number: PHONE })
      )._unsafeUnwrapErr().code,
    ).toBe("phone_number_taken");
    expect((await storage.raw.profile(second.public_id))?.phoneNumber).toBe("+14155552672");
  });

  it("PATCH and DELETE of a Shopify or WooCommerce profile are 409 and change nothing", async () => {
    const { deps, actor, storage } = setup();
    for (const source of ["shopify", "woocommerce"] as const) {
      const phone = source === "shopify" ? PHONE : "+14155552672";
      const profile = (
        await createProfile(deps, actor, { phone_number: phone }, { source })
      )._unsafeUnwrap();
      expect(profile.source).toBe(source);
      expect(
        (
          await updateProfile(deps, actor, profile.public_id, { first_name: "Zed" })
        )._unsafeUnwrapErr(),
      ).toMatchObject({
        type: "conflict",
        code: "profile_protected",
      });
      expect((await deleteProfile(deps, actor, profile.public_id))._unsafeUnwrapErr().code).toBe(
        "profile_protected",
      );
      expect(await storage.raw.profile(profile.public_id)).toMatchObject({
        status: "active",
        firstName: null,
      });
    }
  });

  it("DELETE soft-deletes: inactive, out of every contact list, gone from reads, phone reusable", async () => {
    const { create, deps, actor, storage } = setup();
    const profile = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    await addProfilesToList(deps, actor, { list: "VIP", profile_ids: [profile.public_id] });
    await addProfilesToList(deps, actor, { list: "Newsletter", profile_ids: [profile.public_id] });
    expect(
      (await listProfileContactLists(deps, actor, profile.public_id))._unsafeUnwrap(),
    ).toHaveLength(2);

    expect((await deleteProfile(deps, actor, profile.public_id)).isOk()).toBe(true);
    expect(await storage.raw.profile(profile.public_id)).toMatchObject({
      status: "inactive",
      deletedAt: "2026-05-01T12:00:00.000Z",
    });
    expect(await storage.raw.memberships(profile.public_id)).toEqual([]);
    expect((await listProfiles(deps, actor, {}))._unsafeUnwrap().data).toEqual([]);
    expect((await listProfiles(deps, actor, { phone_number: PHONE }))._unsafeUnwrap().data).toEqual(
      [],
    );
    expect((await deleteProfile(deps, actor, profile.public_id))._unsafeUnwrapErr().type).toBe(
      "not_found",
    );
    const reborn = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    expect(reborn.public_id).not.toBe(profile.public_id);
  });

  it("every change of a consent flag is recorded with the API key and the time", async () => {
    const { create, deps, actor, clock } = setup();
    const profile = (
      await create({ phone_number: PHONE, viber_marketing_consent: true })
    )._unsafeUnwrap();
    clock.advance(60_000);
    await updateProfile(deps, { ...actor, apiKeyId: "key_b" }, profile.public_id, {
      viber_marketing_consent: false,
      sms_marketing_consent: true,
    });
    await updateProfile(deps, actor, profile.public_id, { sms_marketing_consent: true });
    expect((await getConsentHistory(deps, actor, profile.public_id))._unsafeUnwrap()).toEqual([
      {
        channel: "viber",
        old_value: null,
        new_value: true,
        api_key_id: "key_a",
        source: "api",
        changed_at: "2026-05-01T12:00:00.000Z",
        note: null,
      },
      {
        channel: "viber",
        old_value: true,
        new_value: false,
        api_key_id: "key_b",
        source: "api",
        changed_at: "2026-05-01T12:01:00.000Z",
        note: null,
      },
      {
        channel: "sms",
        old_value: false,
        new_value: true,
        api_key_id: "key_b",
        source: "api",
        changed_at: "2026-05-01T12:01:00.000Z",
        note: null,
      },
    ]);
  });

  it("contact lists: adding is all or nothing, idempotent, and scoped to the organization", async () => {
    const { create, deps, actor, other } = setup();
    const a = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    const b = (await create({ phone_number: "+14155552672" }))._unsafeUnwrap();
    const foreign = (await create({ phone_number: PHONE }, other))._unsafeUnwrap();
    const refused = await addProfilesToList(deps, actor, {
      list: "VIP",
      profile_ids: [a.public_id, foreign.public_id],
    });
    expect(refused._unsafeUnwrapErr().type).toBe("not_found");
    const added = (
      await addProfilesToList(deps, actor, {
        list: "VIP",
        profile_ids: [a.public_id, b.public_id, a.public_id],
      })
    )._unsafeUnwrap();
    expect(added.added).toBe(2);
    const again = (
      await addProfilesToList(deps, actor, { list: "VIP", profile_ids: [a.public_id] })
    )._unsafeUnwrap();
    expect(again).toMatchObject({ added: 0, list: { list_id: added.list.list_id } });
    expect((await listContactListMembers(deps, actor, added.list.list_id))._unsafeUnwrap()).toEqual(
      [a.public_id, b.public_id],
    );
    expect(
      (await listContactListMembers(deps, other, added.list.list_id))._unsafeUnwrapErr().type,
    ).toBe("not_found");
  });

  it("contact lists: listed oldest first per organization; removing a member is 404 the second time", async () => {
    const { create, deps, actor, other } = setup();
    const a = (await create({ phone_number: PHONE }))._unsafeUnwrap();
    const vip = (
      await addProfilesToList(deps, actor, { list: "VIP", profile_ids: [a.public_id] })
    )._unsafeUnwrap().list;
    await addProfilesToList(deps, actor, { list: "Newsletter", profile_ids: [a.public_id] });
    expect((await listContactLists(deps, actor))._unsafeUnwrap().map((l) => l.name)).toEqual([
      "VIP",
      "Newsletter",
    ]);
    expect((await listContactLists(deps, other))._unsafeUnwrap()).toEqual([]);

    const foreign = await removeProfileFromList(deps, other, vip.list_id, a.public_id);
    expect(foreign._unsafeUnwrapErr().code).toBe("contact_list_not_found");
    expect((await removeProfileFromList(deps, actor, vip.list_id, a.public_id)).isOk()).toBe(true);
    expect((await listContactListMembers(deps, actor, vip.list_id))._unsafeUnwrap()).toEqual([]);
    const again = await removeProfileFromList(deps, actor, vip.list_id, a.public_id);
    expect(again._unsafeUnwrapErr().code).toBe("contact_list_not_found");
  });

  it("nothing crosses organizations: PATCH and DELETE of another organization's profile are 404", async () => {
    const { create, deps, other, storage } = setup();
    const profile = (await create({ phone_number: PHONE, first_name: "Ann" }))._unsafeUnwrap();
    expect(
      (
        await updateProfile(deps, other, profile.public_id, { first_name: "Eve" })
      )._unsafeUnwrapErr().type,
    ).toBe("not_found");
    expect((await deleteProfile(deps, other, profile.public_id))._unsafeUnwrapErr().type).toBe(
      "not_found",
    );
    expect((await listProfiles(deps, other, {}))._unsafeUnwrap().data).toEqual([]);
    expect(await storage.raw.profile(profile.public_id)).toMatchObject({
      firstName: "Ann",
      status: "active",
    });
  });
});

describe("listing profiles (docs/api.md GET /v1/profiles)", () => {
  it("phone_number and email filters are mutually exclusive (400)", async () => {
    const { deps, actor } = setup();
    const error = (
      await listProfiles(deps, actor, { phone_number: PHONE, email: "a@b.co" })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
  });

  it("the phone filter normalizes like the field and is an exact match", async () => {
    const { create, deps, actor } = setup();
    await create({ phone_number: PHONE });
    await create({ phone_number: "+14155552672" });
    const page = (
      await listProfiles(deps, actor, { phone_number: "+1 415 555 2671" })
    )._unsafeUnwrap();
    expect(page.data.map((profile) => profile.phone_number)).toEqual([PHONE]);
    expect((await listProfiles(deps, actor, { phone_number: "415" }))._unsafeUnwrapErr().type).toBe(
      "validation",
    );
  });

  it("limit defaults to 50, allows 1-100 and refuses anything else", async () => {
    const { create, deps, actor } = setup();
    for (let i = 0; i < 101; i++) await create({ phone_number: `+1415555${String(3000 + i)}` });
    expect((await listProfiles(deps, actor, {}))._unsafeUnwrap().data).toHaveLength(50);
    expect((await listProfiles(deps, actor, { limit: "100" }))._unsafeUnwrap().data).toHaveLength(
      100,
    );
    expect((await listProfiles(deps, actor, { limit: 1 }))._unsafeUnwrap().data).toHaveLength(1);
    for (const limit of ["0", "101", "abc", "1.5", -1, 2.5, ""]) {
      const error = (await listProfiles(deps, actor, { limit }))._unsafeUnwrapErr();
      expect(error.type === "validation" && error.issues[0]?.path, String(limit)).toBe("limit");
    }
  });

  it("pages are oldest first with meta.has_more and meta.next_cursor; the last page has null", async () => {
    const { create, deps, actor } = setup();
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (await create({ phone_number: `+1415555${String(3000 + i)}` }))._unsafeUnwrap().public_id,
      );
    const first = (await listProfiles(deps, actor, { limit: 3 }))._unsafeUnwrap();
    expect(first.meta.has_more).toBe(true);
    const second = (
      await listProfiles(deps, actor, { limit: 3, cursor: first.meta.next_cursor })
    )._unsafeUnwrap();
    expect(second.meta).toEqual({ has_more: false, next_cursor: null });
    expect([...first.data, ...second.data].map((profile) => profile.public_id)).toEqual(made);
  });

  it("a cursor that does not decode is 400 invalid_cursor; unknown query parameters are 400", async () => {
    const { deps, actor } = setup();
    expect((await listProfiles(deps, actor, { cursor: "!!" }))._unsafeUnwrapErr().code).toBe(
      "invalid_cursor",
    );
    expect((await listProfiles(deps, actor, { sort: "desc" }))._unsafeUnwrapErr().code).toBe(
      "validation_failed",
    );
  });
});
