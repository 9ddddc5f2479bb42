import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { specWorld } from "./testing/world-with-spec.js";

const ADA = {
  phone_number: "+1 415 555 0100",
  email: "Ada@Example.com",
  first_name: "Ada",
  last_name: "Lovelace",
  sms_marketing_consent: true,
};

/** A world with Ada, one OTP sent to her, and Grace beside her in the same organization. */
async function withAda() {
  const world = await specWorld();
  const ada = await world.request("POST", "/v1/profiles", { body: ADA });
  const id = String(ada.json.public_id);
  await world.request("POST", "/v1/profiles", {
    body: { phone_number: "+14155550199", first_name: "Grace" },
  });
  const campaign = await world.campaign();
  const sent = await world.request("POST", "/v1/messages/send", {
    body: otpBody(campaign.campaign_id),
    headers: { "idempotency-key": "send-ada-1" },
  });
  expect(sent.status).toBe(200);
  return { world, id, messageId: String(sent.json.message_id) };
}

describe("privacy over HTTP", () => {
  it("GET /v1/profiles/{id}/export holds the profile, its consent history and its messages with the OTP masked", async () => {
    const { world, id, messageId } = await withAda();
    const exported = await world.call(
      "GET",
      "/v1/profiles/{public_id}/export",
      `/v1/profiles/${id}/export`,
    );
    expect(exported.status).toBe(200);
    expect(exported.json.profile).toMatchObject({
      public_id: id,
      phone_number: "+14155550100",
      status: "active",
      erased: false,
    });
    expect(exported.json.consent_history).toEqual([
      expect.objectContaining({ profile_id: id, channel: "sms", new_value: true }),
    ]);
    const messages = exported.json.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.message_id)).toEqual([messageId]);
    expect(messages[0]?.text).toBe("Your code is ••••••.");
    expect(JSON.stringify(exported.json)).not.toContain("Grace");
  });

  it("POST /v1/profiles/{id}/erase erases; GET is then 404, the export shows null, a second erase has nothing left", async () => {
    const { world, id, messageId } = await withAda();
    const hook = await world.request("POST", "/v1/webhooks", {
      body: { url: "https://hooks.example.com/erased", topics: ["profile.erased"] },
    });
    expect(hook.status).toBe(201);
    const erased = await world.call(
      "POST",
      "/v1/profiles/{public_id}/erase",
      `/v1/profiles/${id}/erase`,
    );
    expect(erased.status).toBe(200);
    expect(erased.json).toMatchObject({
      profile_ids: [id],
      erased: { profiles: 1, messages: 1, idempotency_records: 1 },
    });
    expect((await world.request("GET", `/v1/profiles/${id}`)).status).toBe(404);
    const message = await world.request("GET", `/v1/messages/${messageId}`);
    expect(message.json.recipient).toEqual({ public_id: id, phone_number: null });
    const exported = await world.request("GET", `/v1/profiles/${id}/export`);
    expect(exported.json.profile).toMatchObject({
      phone_number: null,
      email: null,
      first_name: null,
      erased: true,
    });
    expect(exported.json.consent_history).toHaveLength(1);
    // One profile.erased, queued for the subscription, naming the profile and nothing else.
    const erasedEvents = (await world.storage.raw.deliveries()).filter(
      (d) => d.topic === "profile.erased",
    );
    expect(erasedEvents.map((d) => JSON.parse(d.payload))).toEqual([
      {
        id: erasedEvents[0]?.id,
        topic: "profile.erased",
        created_at: erased.json.erased_at,
        data: { public_id: id, erased_at: erased.json.erased_at },
      },
    ]);
    const again = await world.request("POST", `/v1/profiles/${id}/erase`);
    expect(again.status).toBe(200);
    expect(Object.values(again.json.erased as Record<string, number>)).toEqual(Array(9).fill(0));
    // Nothing erased now: nothing announced again.
    const announced = await world.storage.raw.deliveries();
    expect(announced.filter((d) => d.topic === "profile.erased")).toHaveLength(1);
  });

  it("POST /v1/privacy/erase by e-mail erases every profile with it, case-insensitively", async () => {
    const { world, id } = await withAda();
    const erased = await world.call("POST", "/v1/privacy/erase", "/v1/privacy/erase", {
      body: { email: "ada@example.COM" },
    });
    expect(erased.status).toBe(200);
    expect(erased.json.profile_ids).toEqual([id]);
    const byNumber = await world.call(
      "GET",
      "/v1/privacy/export",
      "/v1/privacy/export?phone_number=%2B14155550100",
    );
    expect(byNumber.json.profile).toBeNull();
  });

  it("GET /v1/privacy/export by number includes a deleted profile", async () => {
    const { world, id } = await withAda();
    expect((await world.request("DELETE", `/v1/profiles/${id}`)).status).toBe(204);
    const exported = await world.call(
      "GET",
      "/v1/privacy/export",
      "/v1/privacy/export?phone_number=%2B1%20415%20555%200100",
    );
    expect(exported.status).toBe(200);
    expect(exported.json.profile).toMatchObject({ public_id: id, status: "inactive" });
    expect(exported.json.messages).toHaveLength(1);
  });

  it("bad input is 400 naming the field; unknown and other organizations' profiles are 404", async () => {
    const { world, id } = await withAda();
    const none = await world.request("POST", "/v1/privacy/erase", { body: {} });
    expect(none.status).toBe(400);
    expect(none.json.errors).toEqual([expect.objectContaining({ path: "phone_number" })]);
    const both = await world.request("POST", "/v1/privacy/erase", {
      body: { phone_number: "+14155550100", email: "a@b.c" },
    });
    expect((both.json.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(["email"]);
    const badPhone = await world.request("GET", "/v1/privacy/export?phone_number=abc");
    expect(badPhone.status).toBe(400);
    expect((badPhone.json.errors as Array<{ path: string }>)[0]?.path).toBe("phone_number");
    const unknownField = await world.request("GET", "/v1/privacy/export?phone=1");
    expect((unknownField.json.errors as Array<{ path: string }>).map((e) => e.path)).toContain(
      "phone",
    );

    const other = await world.tenant();
    const asOther = { token: other.token };
    expect((await world.request("POST", `/v1/profiles/${id}/erase`, asOther)).status).toBe(404);
    expect((await world.request("GET", `/v1/profiles/${id}/export`, asOther)).status).toBe(404);
    expect((await world.request("POST", "/v1/profiles/prf_nope/erase")).status).toBe(404);
    expect((await world.request("GET", `/v1/profiles/${id}`)).status).toBe(200);
  });

  it("the export needs both profiles:read and messages:read", async () => {
    const { world, id } = await withAda();
    const readsProfiles = await world.tenant(["profiles:read"]);
    const refused = await world.request("GET", `/v1/profiles/${id}/export`, {
      token: readsProfiles.token,
    });
    expect(refused.status).toBe(403);
    expect(String(refused.json.detail)).toContain("messages:read");
  });
});
