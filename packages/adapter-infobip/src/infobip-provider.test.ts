import { type ChannelProvider, manualClock, type OutboundMessage } from "@tidings/core";
import { fetchTransport } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { callbackKey, legToken } from "./callback-token.js";
import { type InfobipProviderOptions, infobipProvider } from "./infobip-provider.js";
import { type FakeInfobip, startFakeInfobip } from "./testing/fake-infobip.js";

const API_KEY = "test-infobip-key";
const SECRET = new Uint8Array(32).fill(7);
const CALLBACKS = "https://tidings.example.com/providers/infobip";
const ID = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";

const viber: OutboundMessage = {
  messageId: ID,
  channel: "viber",
  sender: "AcmeShop",
  phoneNumber: "+41793026727",
  body: "Your order has shipped",
  category: "transactional",
  ttlSeconds: 600,
};
const sms: OutboundMessage = { ...viber, channel: "sms", sender: "Acme", category: "otp" };

let fake: FakeInfobip;
const logged: string[] = [];
afterEach(async () => {
  await fake?.close();
  logged.length = 0;
});

async function setup(extra: Partial<InfobipProviderOptions> = {}): Promise<ChannelProvider> {
  fake = await startFakeInfobip({ apiKey: API_KEY, retryAfterSeconds: 0 });
  return infobipProvider({
    transport: fetchTransport,
    baseUrl: fake.url,
    apiKey: API_KEY,
    callbackBaseUrl: CALLBACKS,
    secretKey: SECRET,
    timeoutMs: 2000,
    random: () => 0,
    logger: { error: (msg) => logged.push(msg), warn: () => {}, info: () => {} },
    ...extra,
  });
}

const token = (legId: string) => legToken(callbackKey(SECRET), legId);

describe("infobipProvider against a fake Infobip", () => {
  it("sends a Viber message as Infobip's ViberRequest, with the leg's tokened callback URLs", async () => {
    const provider = await setup();
    expect(await provider.dispatch(viber)).toEqual({ status: "accepted", providerMessageId: ID });
    const [sent] = fake.sends;
    expect(sent?.path).toBe("/viber/2/messages");
    expect(sent?.authorization).toBe(`App ${API_KEY}`);
    expect(sent?.contentType).toBe("application/json");
    expect(sent?.body).toEqual({
      messages: [
        {
          sender: "AcmeShop",
          destinations: [{ to: "41793026727", messageId: ID }],
          content: { type: "TEXT", text: "Your order has shipped" },
          options: {
            validityPeriod: { amount: 600, timeUnit: "SECONDS" },
            label: "TRANSACTIONAL",
          },
          webhooks: {
            delivery: { url: `${CALLBACKS}/${ID}.${token(ID)}/delivery` },
            seen: { url: `${CALLBACKS}/${ID}.${token(ID)}/seen` },
            contentType: "application/json",
          },
        },
      ],
    });
  });

  it("a validity over Infobip's 48 hours is clamped to 48 hours, not promised, and says so", async () => {
    const provider = await setup();
    const viberAnswer = await provider.dispatch({ ...viber, ttlSeconds: 14 * 24 * 3600 });
    const smsAnswer = await provider.dispatch({ ...sms, ttlSeconds: 3 * 24 * 3600 });
    expect([viberAnswer.clampedTtlSeconds, smsAnswer.clampedTtlSeconds]).toEqual([
      172_800, 172_800,
    ]);
    expect(
      fake.sends.map((s) => (s.body.messages as Array<{ options: unknown }>)[0]?.options),
    ).toMatchObject([
      { validityPeriod: { amount: 172_800, timeUnit: "SECONDS" } },
      { validityPeriod: { amount: 172_800, timeUnit: "SECONDS" } },
    ]);
    // Within 48 hours: taken as asked, nothing to say.
    expect((await provider.dispatch(sms)).clampedTtlSeconds).toBeUndefined();
  });

  it("a Viber text over Infobip's 1,000 characters is refused before it leaves", async () => {
    const provider = await setup();
    expect(await provider.dispatch({ ...viber, body: "y".repeat(1001) })).toMatchObject({
      status: "rejected",
      error: { code: "upstream_rejected", provider: "infobip", provider_code: "text_too_long" },
    });
    expect(fake.sends).toHaveLength(0);
  });

  it("labels Promotional Viber messages PROMOTIONAL", async () => {
    const provider = await setup();
    await provider.dispatch({ ...viber, category: "promotional" });
    expect(fake.sends[0]?.body).toMatchObject({
      messages: [{ options: { label: "PROMOTIONAL" } }],
    });
  });

  it("sends an SMS as SMS v3, under the leg id {id}.sms, with no seen URL", async () => {
    const provider = await setup();
    expect(await provider.dispatch(sms)).toEqual({
      status: "accepted",
      providerMessageId: `${ID}.sms`,
    });
    const leg = `${ID}.sms`;
    expect(fake.sends[0]?.path).toBe("/sms/3/messages");
    expect(fake.sends[0]?.body).toEqual({
      messages: [
        {
          sender: "Acme",
          destinations: [{ to: "41793026727", messageId: leg }],
          content: { text: "Your order has shipped" },
          options: { validityPeriod: { amount: 600, timeUnit: "SECONDS" } },
          webhooks: {
            delivery: { url: `${CALLBACKS}/${leg}.${token(leg)}/delivery` },
            contentType: "application/json",
          },
        },
      ],
    });
  });

  it.each([
    ["rejected_destination", "upstream_rejected", "REJECTED_DESTINATION"],
    ["invalid_request", "upstream_rejected", "E400"],
    ["unauthorized", "upstream_unauthorized", "E401"],
  ] as const)("%s is %s with Infobip's code %s", async (answer, code, providerCode) => {
    const provider = await setup();
    fake.answerNext(answer);
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code, provider: "infobip", provider_code: providerCode },
    });
    expect(fake.sends).toHaveLength(1);
  });

  it("refused API keys are logged at error level, once a minute at most", async () => {
    const clock = manualClock();
    const provider = await setup({ clock });
    fake.answerNext("unauthorized", "unauthorized");
    await provider.dispatch(viber);
    await provider.dispatch(viber);
    expect(logged).toHaveLength(1);
  });

  it("429 is retried after its Retry-After", async () => {
    const provider = await setup();
    fake.answerNext("rate_limited");
    expect(await provider.dispatch(viber)).toMatchObject({ status: "accepted" });
    expect(fake.sends).toHaveLength(2);
  });

  it("a 5xx after Infobip took the message is not sent again on a normal account", async () => {
    const provider = await setup();
    fake.answerNext("server_error_after_taking");
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: {
        code: "upstream_unavailable",
        message: expect.stringContaining("not sent again, as Infobip may have taken it"),
      },
    });
    expect(fake.sends).toHaveLength(1);
    expect(fake.sends.filter((s) => s.delivered)).toHaveLength(1);
  });

  it("a dropped connection after Infobip took the message is not sent again on a normal account", async () => {
    const provider = await setup();
    fake.answerNext("drop_after_taking");
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", message: expect.stringContaining("may have taken") },
    });
    expect(fake.sends.filter((s) => s.delivered)).toHaveLength(1);
  });

  it("with idempotent sending, a 5xx is retried and the duplicate refusal of the retry means accepted", async () => {
    fake = await startFakeInfobip({ apiKey: API_KEY, retryAfterSeconds: 0, idempotent: "answer" });
    const provider = infobipProvider({
      transport: fetchTransport,
      baseUrl: fake.url,
      apiKey: API_KEY,
      callbackBaseUrl: CALLBACKS,
      secretKey: SECRET,
      timeoutMs: 2000,
      random: () => 0,
      idempotent: true,
    });
    fake.answerNext("server_error_after_taking");
    expect(await provider.dispatch(viber)).toEqual({ status: "accepted", providerMessageId: ID });
    expect(fake.sends).toHaveLength(2);
    expect(fake.sends.filter((s) => s.delivered)).toHaveLength(1);
  });

  it("with idempotent sending, a duplicate refusal on a first try is still a refusal", async () => {
    fake = await startFakeInfobip({ apiKey: API_KEY, retryAfterSeconds: 0, idempotent: "answer" });
    const provider = infobipProvider({
      transport: fetchTransport,
      baseUrl: fake.url,
      apiKey: API_KEY,
      callbackBaseUrl: CALLBACKS,
      secretKey: SECRET,
      timeoutMs: 2000,
      idempotent: true,
    });
    await provider.dispatch(viber);
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_rejected", provider_code: "REJECTED_DUPLICATE_MESSAGE_ID" },
    });
  });

  it("a hang past the deadline is upstream_unavailable", async () => {
    const provider = await setup({ timeoutMs: 300 });
    fake.answerNext("hang");
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", provider: "infobip" },
    });
  });
});
