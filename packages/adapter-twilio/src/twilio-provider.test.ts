import { type ChannelProvider, manualClock, type OutboundMessage } from "@tidings/core";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeTwilio, startFakeTwilio } from "./testing/fake-twilio.js";
import { type TwilioProviderOptions, twilioProvider } from "./twilio-provider.js";

const ACCOUNT = `AC${"0".repeat(31)}1`;
const TOKEN = "test-auth-token";
const CALLBACKS = "https://tidings.example.com/providers/twilio";

const message: OutboundMessage = {
  messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
  channel: "sms",
  sender: "+15005550006",
  phoneNumber: "+14155552671",
  body: "Your code is 123456",
  category: "otp",
  ttlSeconds: 300,
};

let fake: FakeTwilio;
const logged: string[] = [];

afterEach(async () => {
  await fake?.close();
  logged.length = 0;
});

async function setup(extra: Partial<TwilioProviderOptions> = {}): Promise<ChannelProvider> {
  fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, retryAfterSeconds: 0 });
  return twilioProvider({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    apiUrl: fake.url,
    callbackBaseUrl: CALLBACKS,
    timeoutMs: 2000,
    random: () => 0,
    logger: { error: (msg) => logged.push(msg) },
    ...extra,
  });
}

describe("twilioProvider against a fake Twilio", () => {
  it("sends the form Twilio expects and keeps the sid", async () => {
    const provider = await setup();
    const result = await provider.dispatch(message);
    expect(fake.sends).toHaveLength(1);
    const [sent] = fake.sends;
    expect(result).toEqual({ status: "accepted", providerMessageId: sent?.sid });
    expect(sent?.sid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(sent?.authorization).toBe(
      `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")}`,
    );
    expect(sent?.contentType).toBe("application/x-www-form-urlencoded");
    expect(sent?.form).toEqual({
      To: "+14155552671",
      From: "+15005550006",
      Body: "Your code is 123456",
      ValidityPeriod: "300",
      StatusCallback: `${CALLBACKS}/status?m=${message.messageId}`,
    });
  });

  it("a Messaging Service replaces From; the validity is clamped to Twilio's 1–36000", async () => {
    const provider = await setup({ messagingServiceSid: `MG${"a".repeat(32)}` });
    await provider.dispatch({ ...message, ttlSeconds: 86_400 });
    expect(fake.sends[0]?.form).toMatchObject({
      MessagingServiceSid: `MG${"a".repeat(32)}`,
      ValidityPeriod: "36000",
    });
    expect(fake.sends[0]?.form.From).toBeUndefined();
  });

  it("sends with an API key when one is given", async () => {
    fake = await startFakeTwilio({
      accountSid: ACCOUNT,
      authToken: TOKEN,
      apiKeySid: `SK${"b".repeat(32)}`,
      apiKeySecret: "key-secret",
    });
    const provider = twilioProvider({
      accountSid: ACCOUNT,
      authToken: TOKEN,
      apiKeySid: `SK${"b".repeat(32)}`,
      apiKeySecret: "key-secret",
      apiUrl: fake.url,
      callbackBaseUrl: CALLBACKS,
    });
    expect(await provider.dispatch(message)).toMatchObject({ status: "accepted" });
    expect(fake.sends[0]?.authorization).toBe(
      `Basic ${Buffer.from(`SK${"b".repeat(32)}:key-secret`).toString("base64")}`,
    );
  });

  it.each([
    ["invalid_number", "upstream_rejected", "21211"],
    ["opted_out", "upstream_rejected", "21610"],
    ["unauthorized", "upstream_unauthorized", "20003"],
    ["server_error", "upstream_unavailable", "20500"],
  ] as const)("%s is %s with Twilio's code %s, sent once", async (answer, code, providerCode) => {
    const provider = await setup();
    fake.answerNext(answer);
    const result = await provider.dispatch(message);
    expect(result).toMatchObject({
      status: "rejected",
      error: { code, provider: "twilio", provider_code: providerCode },
    });
    expect(fake.sends).toHaveLength(1);
  });

  it("refused credentials are logged at error level, once a minute at most", async () => {
    const clock = manualClock();
    const provider = await setup({ clock });
    fake.answerNext("unauthorized", "unauthorized", "unauthorized");
    await provider.dispatch(message);
    await provider.dispatch(message);
    expect(logged).toHaveLength(1);
    clock.advance(60_000);
    await provider.dispatch(message);
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatch(/refused the credentials/);
  });

  it("429 is retried after its Retry-After, and the retry's answer stands", async () => {
    const provider = await setup();
    fake.answerNext("rate_limited");
    const result = await provider.dispatch(message);
    expect(result).toMatchObject({ status: "accepted" });
    expect(fake.sends).toHaveLength(2);
  });

  it("429 three times ends as upstream_unavailable with code 20429", async () => {
    const provider = await setup();
    fake.answerNext("rate_limited", "rate_limited", "rate_limited");
    const result = await provider.dispatch(message);
    expect(result).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", provider_code: "20429" },
    });
    expect(fake.sends).toHaveLength(3);
  });

  it("a hang past the deadline is upstream_unavailable and is not sent again", async () => {
    const provider = await setup({ timeoutMs: 300 });
    fake.answerNext("hang");
    const result = await provider.dispatch(message);
    expect(result).toMatchObject({ status: "rejected", error: { code: "upstream_unavailable" } });
    expect(fake.sends).toHaveLength(1);
  });

  it("a connection cut after the request was sent is not sent again", async () => {
    const provider = await setup();
    fake.answerNext("drop");
    const result = await provider.dispatch(message);
    expect(result).toMatchObject({ status: "rejected", error: { code: "upstream_unavailable" } });
    expect(fake.sends).toHaveLength(1);
  });

  it("a refused connection is retried, then ends as upstream_unavailable", async () => {
    const provider = await setup();
    const closedUrl = fake.url;
    await fake.close();
    const down = twilioProvider({
      accountSid: ACCOUNT,
      authToken: TOKEN,
      apiUrl: closedUrl,
      callbackBaseUrl: CALLBACKS,
      random: () => 0,
    });
    expect(await down.dispatch(message)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", provider: "twilio" },
    });
    expect(provider.name).toBe("twilio");
  });

  it("after 5 unavailable answers the circuit opens: sends fail at once, Twilio is not called", async () => {
    const clock = manualClock();
    const provider = await setup({ clock });
    fake.answerNext(...Array<"server_error">(5).fill("server_error"));
    for (let i = 0; i < 5; i += 1) await provider.dispatch(message);
    const fast = await provider.dispatch(message);
    expect(fast).toMatchObject({ status: "rejected", error: { code: "upstream_unavailable" } });
    expect(fake.sends).toHaveLength(5);
    clock.advance(30_000);
    expect(await provider.dispatch(message)).toMatchObject({ status: "accepted" });
    expect(fake.sends).toHaveLength(6);
  });
});
