import { generateKeyPairSync } from "node:crypto";
import {
  infobipInboundSms,
  infobipInboundViber,
  postInfobipInbound,
} from "@tidings/adapter-infobip/testing";
import { postTwilioInbound, twilioInboundForm } from "@tidings/adapter-twilio/testing";
import { postVonageInbound, vonageInboundText } from "@tidings/adapter-vonage/testing";
import type { InboundReport, InboundSink } from "@tidings/core";
import { cleanupsEach } from "@tidings/core/testing";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { serveTidings } from "./testing/served-tidings.js";

// Issue 44 through the real `tidings serve`: each provider's inbound route is mounted under
// /providers/{name}, verifies the request as the provider signs it (Twilio's signature by the
// official package, Infobip's URL token, Vonage's HS256 JWT over the body) and hands what it
// verified to the runtime's inbound sink; forged requests never reach it. Each case runs with a
// recording sink given to the server, and with the runtime's own sink.

/**
 * Whether the runtime's own sink stores inbound messages. Until core's sink is connected in
 * `openRuntime` it is a placeholder that refuses them (503, so the provider sends them again);
 * set this to true when it is, and the signed requests below must then be answered 200.
 */
const RUNTIME_SINK_STORES = true;

const cleanups = cleanupsEach();
const ACCOUNT = `AC${"3".repeat(32)}`;
const TWILIO_TOKEN = "serve-inbound-twilio-token";
const INFOBIP_TOKEN = "inbound-token-0123456789abcdef-current";
const INFOBIP_NEXT = "inbound-token-0123456789abcdef-rotated";
const APP = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";
const SECRET = "serve-inbound-signature-secret";
const VONAGE_KEY = "abcd1234";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

function recordingSink(): InboundSink & { received: InboundReport[] } {
  const received: InboundReport[] = [];
  return {
    received,
    async receive(report) {
      received.push(report);
      return "stored";
    },
  };
}

const cases = [
  { sink: "a recording sink given to serve", injected: true },
  { sink: "the runtime's own sink", injected: false },
] as const;

describe.each(cases)("inbound routes with $sink", ({ injected }) => {
  const sink = injected ? recordingSink() : undefined;
  /** What a signed request must be answered: the placeholder refuses it with 503. */
  const signedStatus = injected || RUNTIME_SINK_STORES ? 200 : 503;

  it("Twilio (SMS) and Infobip (SMS and Viber): signed ones reach the sink, forged ones are refused", {
    timeout: 60_000,
  }, async () => {
    const tidings = await serveTidings(
      {
        TIDINGS_PROVIDER_VIBER: "infobip",
        TIDINGS_PROVIDER_SMS: "twilio",
        TIDINGS_INFOBIP_BASE_URL: "http://127.0.0.1:9",
        TIDINGS_INFOBIP_API_KEY: "serve-inbound-infobip-key",
        TIDINGS_INFOBIP_INBOUND_TOKENS: `${INFOBIP_TOKEN},${INFOBIP_NEXT}`,
        TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
        TIDINGS_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
        TIDINGS_TWILIO_API_URL: "http://127.0.0.1:9",
      },
      { inboundSink: sink },
    );
    cleanups.push(() => tidings.stop());
    const before = sink?.received.length ?? 0;

    // Twilio: the number's "A message comes in" webhook, signed by the official package.
    const twilioUrl = `${tidings.url}/providers/twilio/inbound`;
    const form = twilioInboundForm({
      from: "+14155550100",
      to: "+14155550199",
      body: "STOP",
      optOutType: "STOP",
    });
    const forged = await postTwilioInbound(twilioUrl, TWILIO_TOKEN, form, {
      signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    });
    expect(forged.status).toBe(403);
    const unsigned = await postTwilioInbound(twilioUrl, TWILIO_TOKEN, form, { signature: null });
    expect(unsigned.status).toBe(403);
    const otherToken = await postTwilioInbound(twilioUrl, "another-token", form, {
      sign: twilio.getExpectedTwilioSignature,
    });
    expect(otherToken.status).toBe(403);
    expect(sink?.received.length ?? 0).toBe(before);
    const signed = await postTwilioInbound(twilioUrl, TWILIO_TOKEN, form, {
      sign: twilio.getExpectedTwilioSignature,
    });
    expect(signed.status).toBe(signedStatus);
    if (signedStatus === 200) {
      expect(signed.contentType).toMatch(/^text\/xml/);
      expect(signed.body).toContain("<Response/>");
    }

    // Infobip: forwarded to the URL with the token; a wrong token is 404, either configured
    // token (rotation) is accepted, and the token never reaches the request log.
    const infobipUrl = (token: string) => `${tidings.url}/providers/infobip/inbound/${token}`;
    const sms = infobipInboundSms({ from: "385916242493", to: "385921004026", text: "Stop" });
    expect((await postInfobipInbound(infobipUrl("x".repeat(40)), [sms])).status).toBe(404);
    expect(
      (await postInfobipInbound(`${tidings.url}/providers/infobip/inbound`, [sms])).status,
    ).toBe(404);
    expect(sink?.received.length ?? 0).toBe(before + (injected ? 1 : 0));
    const viber = infobipInboundViber({ sender: "385912345678", to: "AcmeViber", text: "stop" });
    expect((await postInfobipInbound(infobipUrl(INFOBIP_TOKEN), [sms, viber])).status).toBe(
      signedStatus,
    );
    expect((await postInfobipInbound(infobipUrl(INFOBIP_NEXT), [sms])).status).toBe(signedStatus);
    expect((await postInfobipInbound(infobipUrl(INFOBIP_TOKEN), [], { body: "{}" })).status).toBe(
      400,
    );

    const logged = JSON.stringify(tidings.logs());
    expect(logged).not.toContain(INFOBIP_TOKEN);
    expect(logged).not.toContain(INFOBIP_NEXT);
    expect(logged).toContain("/providers/infobip/inbound/{token}");

    if (sink !== undefined) {
      expect(sink.received.slice(before)).toEqual([
        {
          provider: "twilio",
          providerMessageId: form.MessageSid,
          channel: "sms",
          from: "+14155550100",
          to: "+14155550199",
          text: "STOP",
          receivedAt: null,
          providerKeywordClass: "opt_out",
        },
        expect.objectContaining({ provider: "infobip", channel: "sms", from: "385916242493" }),
        expect.objectContaining({ provider: "infobip", channel: "viber", to: "AcmeViber" }),
        // The same message delivered again reaches the sink again: it deduplicates.
        expect.objectContaining({ provider: "infobip", providerMessageId: sms.messageId }),
      ]);
    }
  });

  it("Vonage (SMS and Viber): signed ones reach the sink, unsigned, forged and tampered ones are refused", {
    timeout: 60_000,
  }, async () => {
    const tidings = await serveTidings(
      {
        TIDINGS_PROVIDER: "vonage",
        TIDINGS_VONAGE_APPLICATION_ID: APP,
        TIDINGS_VONAGE_PRIVATE_KEY: privateKey,
        TIDINGS_VONAGE_SIGNATURE_SECRET: SECRET,
        TIDINGS_VONAGE_API_KEY: VONAGE_KEY,
        TIDINGS_VONAGE_API_URL: "http://127.0.0.1:9",
      },
      { inboundSink: sink },
    );
    cleanups.push(() => tidings.stop());
    const before = sink?.received.length ?? 0;
    const url = `${tidings.url}/providers/vonage/inbound`;
    const signing = { signatureSecret: SECRET, apiKey: VONAGE_KEY };
    const sms = vonageInboundText({
      channel: "sms",
      from: "447700900001",
      to: "447700900000",
      text: "STOP",
    });
    expect((await postVonageInbound(url, sms, { ...signing, signature: null })).status).toBe(403);
    const forged = { ...signing, signatureSecret: "not-the-secret" };
    expect((await postVonageInbound(url, sms, forged)).status).toBe(403);
    expect((await postVonageInbound(url, sms, { ...signing, tamper: true })).status).toBe(403);
    expect(sink?.received.length ?? 0).toBe(before);

    expect((await postVonageInbound(url, sms, signing)).status).toBe(signedStatus);
    const viber = vonageInboundText({
      channel: "viber_service",
      from: "447700900001",
      to: "16273",
      text: "stop",
    });
    expect((await postVonageInbound(url, viber, signing)).status).toBe(signedStatus);
    if (sink !== undefined) {
      expect(sink.received.slice(before).map((r) => [r.provider, r.channel, r.text])).toEqual([
        ["vonage", "sms", "STOP"],
        ["vonage", "viber", "stop"],
      ]);
    }
  });
});
