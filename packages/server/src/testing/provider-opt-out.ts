import { expect } from "vitest";
import type { ServedTidings } from "./served-tidings.js";

/** The scopes the opt-out checks below need of the served key. */
export const OPT_OUT_SCOPES = "profiles:read,profiles:write,messages:send,messages:read";

/**
 * Creates a profile of `phone` that consented to SMS marketing and sends it the served OTP
 * campaign's SMS; answers the message's id and the profile's public id.
 */
export async function sendToConsentingProfile(
  tidings: ServedTidings,
  phone: string,
): Promise<{ messageId: string; publicId: string }> {
  const profile = await tidings.call("POST", "/v1/profiles", {
    phone_number: phone,
    sms_marketing_consent: true,
  });
  expect(profile.status).toBe(201);
  const { public_id } = (await profile.json()) as { public_id: string };
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: phone },
    params: { pin: "4242" },
  });
  const body = (await sent.json()) as { message_id: string; status: string };
  expect(body.status, JSON.stringify(body)).toBe("sent");
  return { messageId: body.message_id, publicId: public_id };
}

/**
 * What a provider's report that the recipient opted out or blocked the sender must leave: the
 * message failed `recipient_opted_out` naming the provider and its code, the profile's SMS
 * consent off, the number suppressed on SMS with source `provider`, and the next send refused.
 */
export async function expectOptedOutByProvider(
  tidings: ServedTidings,
  sent: { messageId: string; publicId: string; phone: string },
  provider: string,
  code: string,
): Promise<void> {
  const view = await (await tidings.call("GET", `/v1/messages/${sent.messageId}`)).json();
  expect(view).toMatchObject({
    status: "failed",
    error: { code: "recipient_opted_out", provider, provider_code: code },
  });
  const profile = await (await tidings.call("GET", `/v1/profiles/${sent.publicId}`)).json();
  expect(profile).toMatchObject({
    sms_marketing_consent: false,
    suppressed: { viber: false, sms: true },
  });
  const query = `?channel=sms&phone_number=${encodeURIComponent(sent.phone)}`;
  const suppressions = (await (await tidings.call("GET", `/v1/suppressions${query}`)).json()) as {
    data: unknown[];
  };
  expect(suppressions.data).toEqual([
    expect.objectContaining({
      channel: "sms",
      phone_number: sent.phone,
      source: "provider",
      provider,
    }),
  ]);
  const again = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: sent.phone },
    params: { pin: "4243" },
  });
  expect(again.status).toBe(403);
  expect(await again.json()).toMatchObject({ code: "recipient_opted_out" });
}
