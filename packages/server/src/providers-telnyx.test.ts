import { generateKeyPairSync, sign } from "node:crypto";
import { startFakeTelnyx } from "@tidings/adapter-telnyx/testing";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { serveTidings } from "./testing/served-tidings.js";

// Issue 47 through the real server: SMS on Telnyx (a loopback fake of Messaging v2). The send
// carries the API key as Bearer and its own webhook URL; Telnyx's status webhooks, signed with
// Ed25519 over `{timestamp}|{body}`, come back through /providers/telnyx and take the message
// to delivered, while forged, unsigned, tampered and stale ones change nothing. An inbound STOP
// on the profile's webhook URL (issue 44) then refuses the next send to that number.

const cleanups = cleanupsEach();
const KEY = "KEYserve0123456789";
const SCOPES = "profiles:read,profiles:write,messages:send,messages:read,campaigns:manage";

it("SMS on Telnyx: send → signed status webhooks → delivered; forged ones change nothing; STOP refuses the next send", {
  timeout: 60_000,
}, async () => {
  const telnyx = await startFakeTelnyx({ apiKey: KEY });
  cleanups.push(() => telnyx.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "telnyx",
      TIDINGS_TELNYX_API_KEY: KEY,
      TIDINGS_TELNYX_PUBLIC_KEY: telnyx.publicKey,
      TIDINGS_TELNYX_API_URL: telnyx.url,
    },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  expect((await tidings.waitForLog("listening")).providers).toEqual({
    viber: "sandbox",
    sms: "telnyx",
  });

  const created = await tidings.call("POST", "/v1/campaigns", {
    name: "SMS codes",
    channel: "sms",
    category: "otp",
    sender: "+447911123457",
    template: "Your code is {{pin}}",
    status: "active",
  });
  const { campaign_id, ...refusal } = (await created.json()) as Record<string, string>;
  expect(created.status, JSON.stringify(refusal)).toBe(201);
  const send = () =>
    tidings.call("POST", "/v1/messages/send", {
      campaign_id,
      recipient: { type: "phone_number", value: "+447911123456" },
      params: { pin: "123456" },
    });
  const { message_id, status, ...problem } = (await (await send()).json()) as Record<
    string,
    string
  >;
  expect(status, JSON.stringify(problem)).toBe("sent");
  expect(telnyx.sends).toHaveLength(1);
  const [request] = telnyx.sends;
  expect(request?.authorization).toBe(`Bearer ${KEY}`);
  expect(request?.body).toEqual({
    from: "+447911123457",
    to: "+447911123456",
    text: "Your code is 123456",
    webhook_url: `${tidings.url}/providers/telnyx/status?m=${message_id}`,
  });
  const id = String(request?.id);
  const view = async () =>
    (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as Record<
      string,
      unknown
    >;

  // Signed with another key, unsigned, tampered after signing, or 6 minutes old: 403.
  const otherKey = generateKeyPairSync("ed25519").privateKey;
  const forged = sign(null, Buffer.from("0|{}"), otherKey).toString("base64");
  for (const options of [
    { signature: forged },
    { signature: null },
    { tamper: true },
    { timestampOffsetSeconds: -360 },
  ]) {
    expect((await telnyx.status(id, "delivered", options)).status).toBe(403);
  }
  expect(await view()).toMatchObject({ status: "sent", provider: "telnyx" });

  expect((await telnyx.status(id, "sent")).status).toBe(200);
  const delivered = await telnyx.status(id, "delivered");
  expect([delivered.status, delivered.body]).toEqual([200, ""]);
  expect(await view()).toMatchObject({
    status: "delivered",
    provider: "telnyx",
    provider_message_id: id,
  });

  // STOP from the recipient to our sender, on the messaging profile's webhook URL.
  const inboundUrl = `${tidings.url}/providers/telnyx/inbound`;
  const stop = { from: "+447911123456", to: "+447911123457", text: "STOP" };
  expect((await telnyx.inbound(inboundUrl, stop, { signature: forged })).status).toBe(403);
  expect((await send()).status).toBe(200);
  expect(await telnyx.inbound(inboundUrl, stop)).toEqual({ status: 200, body: "" });
  const refused = await send();
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { code: string }).code).toBe("recipient_opted_out");
  expect(telnyx.sends).toHaveLength(2);
});
