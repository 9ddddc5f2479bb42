import { type ChannelProvider, manualClock, type OutboundMessage } from "@tidings/core";
import { fetchTransport } from "@tidings/core/testing";
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
    transport: fetchTransport,
    accountSid: ACCOUNT,
    authToken: TOKEN,
    apiUrl: fake.url,
    callbackBaseUrl: CALLBACKS,
    timeoutMs: 2000,
    random: () => 0,
    logger: { error: (msg) => logged.push(msg), warn: () => {}, info: () => {} },
    ...extra,
  });
}

describe("twilioProvider against a fake Twilio", () => {
  it("sends the form Twilio expects and keeps the sid and the sender Twilio names", async () => {
    const provider = await setup();
    const result = await provider.dispatch(message);
    expect(fake.sends).toHaveLength(1);
    const [sent] = fake.sends;
    expect(result).toEqual({
      status: "accepted",
      providerMessageId: sent?.sid,
      sentFrom: "+15005550006",
    });
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
      transport: fetchTransport,
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
      transport: fetchTransport,
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

  it("a text over Twilio's 1,600 characters is refused before it leaves", async () => {
    const provider = await setup();
    expect(await provider.dispatch({ ...message, body: "é".repeat(1601) })).toMatchObject({
      status: "rejected",
      error: {
        code: "upstream_rejected",
        provider_code: "text_too_long",
        message: expect.stringContaining("at most 1600 characters"),
      },
    });
    expect(fake.sends).toHaveLength(0);
    expect(await provider.dispatch({ ...message, body: "é".repeat(1600) })).toMatchObject({
      status: "accepted",
    });
  });

  it("21611 (the sender's queue is full) is temporary: tried again, not a refusal", async () => {
    const provider = await setup();
    fake.answerNext("queue_full");
    expect(await provider.dispatch(message)).toMatchObject({ status: "accepted" });
    expect(fake.sends).toHaveLength(2);
    fake.answerNext("queue_full", "queue_full", "queue_full");
    expect(await provider.dispatch(message)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", provider_code: "21611" },
    });
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

describe("a Twilio send that gets no answer names its cause and whether anything was sent", () => {
  const warned: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  afterEach(() => {
    warned.length = 0;
  });
  const at = (apiUrl: string, extra: Partial<TwilioProviderOptions> = {}) =>
    twilioProvider({
      transport: fetchTransport,
      accountSid: ACCOUNT,
      authToken: TOKEN,
      apiUrl,
      callbackBaseUrl: CALLBACKS,
      timeoutMs: 2000,
      random: () => 0,
      logger: {
        error: (msg) => logged.push(msg),
        warn: (msg, fields) => warned.push({ msg, fields }),
        info: () => {},
      },
      ...extra,
    });

  it("a name that does not resolve: the lookup's error, nothing was sent, one warn line per try", async () => {
    const result = await at("http://api.twilio.invalid").dispatch(message);
    expect(result).toMatchObject({ status: "rejected", error: { code: "upstream_unavailable" } });
    const said = result.status === "rejected" ? result.error.message : "";
    expect(said).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(said).toContain("api.twilio.invalid");
    expect(said).toContain("nothing was sent");
    expect(said).not.toContain(TOKEN);
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned[0]).toEqual({
      msg: "provider request failed",
      fields: expect.objectContaining({
        provider: "twilio",
        channel: "sms",
        outcome: "unavailable",
        cause: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/),
      }),
    });
    expect(JSON.stringify(warned)).not.toContain(TOKEN);
  });

  it("a refused connection: nothing was sent", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    const closed = fake.url;
    await fake.close();
    const result = await at(closed).dispatch(message);
    const said = result.status === "rejected" ? result.error.message : "";
    expect(said).toContain("ECONNREFUSED");
    expect(said).toContain("nothing was sent");
    expect(warned[0]?.fields).toMatchObject({
      outcome: "unavailable",
      cause: expect.stringContaining("ECONNREFUSED"),
    });
  });

  it("a TLS handshake that fails: nothing was sent, and the fake saw no request", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    const result = await at(fake.url.replace("http:", "https:")).dispatch(message);
    const said = result.status === "rejected" ? result.error.message : "";
    expect(said).toContain("nothing was sent");
    expect(fake.sends).toHaveLength(0);
  });

  it("a timeout: the message may have been taken, so it was not sent again", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    fake.answerNext("hang");
    const result = await at(fake.url, { timeoutMs: 300 }).dispatch(message);
    const said = result.status === "rejected" ? result.error.message : "";
    expect(said).toContain("did not answer within 300 ms");
    expect(said).toContain("may have taken it");
    expect(fake.sends).toHaveLength(1);
    expect(warned).toHaveLength(1);
    expect(warned[0]?.fields).toMatchObject({ outcome: "unavailable", cause: "no answer in time" });
  });

  it("a connection reset after sending: the cause, and it may have been taken", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    fake.answerNext("drop");
    const result = await at(fake.url).dispatch(message);
    const said = result.status === "rejected" ? result.error.message : "";
    expect(said).toMatch(
      /failed after the request was sent \(.+\); the message was not sent again, as Twilio may have taken it/,
    );
    expect(warned).toHaveLength(1);
  });

  it("a refusal by Twilio is logged once at warn with Twilio's words", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    fake.answerNext("invalid_number");
    await at(fake.url).dispatch(message);
    expect(warned).toEqual([
      {
        msg: "provider request failed",
        fields: expect.objectContaining({
          provider: "twilio",
          outcome: "rejected",
          status: 400,
          cause: expect.stringContaining("is not a valid phone number"),
        }),
      },
    ]);
  });
});
