import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readConfig } from "./config.js";

const cwd = mkdtempSync(join(tmpdir(), "tidings-provider-config-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const SID = `AC${"a".repeat(32)}`;
const TWILIO = {
  TIDINGS_TWILIO_ACCOUNT_SID: SID,
  TIDINGS_TWILIO_AUTH_TOKEN: "token",
  TIDINGS_PUBLIC_URL: "https://tidings.example.com",
};

const read = (env: Record<string, string>) => readConfig(env, cwd);
const errorsOf = (env: Record<string, string>): string[] => {
  const result = read(env);
  if (result.isOk()) throw new Error("expected the configuration to be refused");
  return result.error;
};

describe("provider routing (TIDINGS_PROVIDER, _VIBER, _SMS)", () => {
  it("routes SMS to Twilio and leaves Viber on the sandbox", () => {
    const result = read({ ...TWILIO, TIDINGS_PROVIDER_SMS: "twilio" });
    expect(result.isOk() && result.value.providers).toEqual({
      viber: "sandbox",
      sms: "twilio",
      timeoutMs: 10_000,
      twilio: {
        accountSid: SID,
        authToken: "token",
        apiKeySid: null,
        apiKeySecret: null,
        messagingServiceSid: null,
        apiUrl: "https://api.twilio.com",
        webhookKeys: {},
        fetchPrice: false,
        priceDelayMs: 10_000,
      },
      infobip: null,
      vonage: null,
      telnyx: null,
      failover: { viber: ["sandbox"], sms: ["twilio"], onTimeout: false, senders: {} },
    });
  });

  it("Twilio for both channels is refused: it carries no Viber, and the message says which variable", () => {
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER: "twilio" })).toEqual([
      "TIDINGS_PROVIDER is twilio, but Twilio carries sms only, not viber: set TIDINGS_PROVIDER_VIBER to a provider that carries viber (sandbox, infobip, vonage).",
    ]);
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER_VIBER: "twilio" })[0]).toMatch(
      /^TIDINGS_PROVIDER_VIBER is twilio, but Twilio carries sms only/,
    );
  });

  it("names every missing variable at once", () => {
    const errors = errorsOf({
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_PUBLIC_URL: "https://tidings.example.com",
      TIDINGS_TWILIO_API_KEY_SID: `SK${"b".repeat(32)}`,
    });
    expect(errors).toEqual([
      "TIDINGS_PROVIDER_SMS is twilio, which needs TIDINGS_TWILIO_ACCOUNT_SID, TIDINGS_TWILIO_AUTH_TOKEN, TIDINGS_TWILIO_API_KEY_SECRET: set them.",
    ]);
  });

  it("refuses malformed SIDs, naming each variable", () => {
    const errors = errorsOf({
      ...TWILIO,
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_ACCOUNT_SID: "AC123",
      TIDINGS_TWILIO_MESSAGING_SERVICE_SID: "service",
    });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("TIDINGS_TWILIO_ACCOUNT_SID");
    expect(errors[1]).toContain("TIDINGS_TWILIO_MESSAGING_SERVICE_SID");
  });

  it("outside development, a real provider needs an https TIDINGS_PUBLIC_URL", () => {
    const { TIDINGS_PUBLIC_URL: _, ...noUrl } = TWILIO;
    expect(errorsOf({ ...noUrl, TIDINGS_PROVIDER_SMS: "twilio" })).toEqual([
      "TIDINGS_PUBLIC_URL must be the https URL at which Twilio reaches this server (its callbacks go to TIDINGS_PUBLIC_URL/providers/twilio/…), since TIDINGS_PROVIDER_SMS is twilio.",
    ]);
    const http = { ...TWILIO, TIDINGS_PUBLIC_URL: "http://tidings.example.com" };
    expect(errorsOf({ ...http, TIDINGS_PROVIDER_SMS: "twilio" })[0]).toContain(
      "TIDINGS_PUBLIC_URL",
    );
    const dev = read({ ...noUrl, TIDINGS_PROVIDER_SMS: "twilio", TIDINGS_DEV: "1" });
    expect(dev.isOk()).toBe(true);
  });

  it("a local API origin only in development", () => {
    const local = {
      ...TWILIO,
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_API_URL: "http://127.0.0.1:9",
    };
    expect(errorsOf(local)[0]).toContain("TIDINGS_TWILIO_API_URL");
    const dev = read({ ...local, TIDINGS_DEV: "1" });
    expect(dev.isOk() && dev.value.providers.twilio?.apiUrl).toBe("http://127.0.0.1:9");
  });

  it("Infobip carries both channels; Viber on Infobip with SMS on Twilio", () => {
    const result = read({
      ...TWILIO,
      TIDINGS_PROVIDER: "infobip",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_INFOBIP_BASE_URL: "https://abcde.api.infobip.com/",
      TIDINGS_INFOBIP_API_KEY: "key",
    });
    expect(result.isOk() && result.value.providers).toMatchObject({
      viber: "infobip",
      sms: "twilio",
      infobip: {
        baseUrl: "https://abcde.api.infobip.com",
        apiKey: "key",
        inboundTokens: [],
        idempotent: false,
      },
    });
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER: "infobip" })).toEqual([
      "TIDINGS_PROVIDER is infobip, which needs TIDINGS_INFOBIP_BASE_URL, TIDINGS_INFOBIP_API_KEY: set them.",
    ]);
  });

  it("Infobip's inbound tokens: a comma-separated list, each at least 32 URL-safe characters, never echoed", () => {
    const infobip = {
      ...TWILIO,
      TIDINGS_PROVIDER: "infobip",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_INFOBIP_BASE_URL: "https://abcde.api.infobip.com/",
      TIDINGS_INFOBIP_API_KEY: "key",
    };
    const current = "a".repeat(32);
    const next = "b".repeat(48);
    const result = read({ ...infobip, TIDINGS_INFOBIP_INBOUND_TOKENS: ` ${current} , ${next},` });
    expect(result.isOk() && result.value.providers.infobip?.inboundTokens).toEqual([current, next]);
    const short = "s3cr3t-but-short";
    const errors = errorsOf({
      ...infobip,
      TIDINGS_INFOBIP_INBOUND_TOKENS: `${current},${short},${"c".repeat(31)}/`,
    });
    expect(errors).toEqual([
      expect.stringMatching(
        /^TIDINGS_INFOBIP_INBOUND_TOKENS: token 2 has 16 characters; at least 32/,
      ),
      expect.stringMatching(/^TIDINGS_INFOBIP_INBOUND_TOKENS: token 3 may hold only letters/),
    ]);
    expect(errors.join(" ")).not.toContain(short);
  });

  it("TIDINGS_TWILIO_FETCH_PRICE is 0 or 1, TIDINGS_TWILIO_PRICE_DELAY_MS a whole number of ms", () => {
    const twilio = { ...TWILIO, TIDINGS_PROVIDER_SMS: "twilio" };
    const on = read({
      ...twilio,
      TIDINGS_TWILIO_FETCH_PRICE: "1",
      TIDINGS_TWILIO_PRICE_DELAY_MS: "50",
    });
    expect(on.isOk() && on.value.providers.twilio).toMatchObject({
      fetchPrice: true,
      priceDelayMs: 50,
    });
    expect(errorsOf({ ...twilio, TIDINGS_TWILIO_FETCH_PRICE: "yes" })[0]).toMatch(
      /^TIDINGS_TWILIO_FETCH_PRICE must be 1/,
    );
    expect(errorsOf({ ...twilio, TIDINGS_TWILIO_PRICE_DELAY_MS: "1.5" })[0]).toMatch(
      /^TIDINGS_TWILIO_PRICE_DELAY_MS must be a whole number/,
    );
  });

  it("TIDINGS_TWILIO_WEBHOOK_KEYS is a JSON object of key id to secret; TIDINGS_INFOBIP_IDEMPOTENT is 0 or 1", () => {
    const keys = read({
      ...TWILIO,
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_WEBHOOK_KEYS: '{"webhooks_sharedkey_1":"s3cret"}',
    });
    expect(keys.isOk() && keys.value.providers.twilio?.webhookKeys).toEqual({
      webhooks_sharedkey_1: "s3cret",
    });
    const bad = errorsOf({
      ...TWILIO,
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_WEBHOOK_KEYS: '["s3cret"]',
    });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^TIDINGS_TWILIO_WEBHOOK_KEYS must be a JSON object/);
    expect(bad[0]).not.toContain("s3cret");
    const infobip = {
      ...TWILIO,
      TIDINGS_PROVIDER: "infobip",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_INFOBIP_BASE_URL: "https://abcde.api.infobip.com/",
      TIDINGS_INFOBIP_API_KEY: "key",
    };
    const on = read({ ...infobip, TIDINGS_INFOBIP_IDEMPOTENT: "1" });
    expect(on.isOk() && on.value.providers.infobip?.idempotent).toBe(true);
    const off = read(infobip);
    expect(off.isOk() && off.value.providers.infobip?.idempotent).toBe(false);
    expect(errorsOf({ ...infobip, TIDINGS_INFOBIP_IDEMPOTENT: "yes" })[0]).toMatch(
      /^TIDINGS_INFOBIP_IDEMPOTENT must be 1/,
    );
  });

  it("Vonage needs its application, a PEM private key and the signature secret", () => {
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER_VIBER: "vonage" })).toEqual([
      "TIDINGS_PROVIDER_VIBER is vonage, which needs TIDINGS_VONAGE_APPLICATION_ID, TIDINGS_VONAGE_PRIVATE_KEY, TIDINGS_VONAGE_SIGNATURE_SECRET: set them.",
    ]);
    const badKey = errorsOf({
      ...TWILIO,
      TIDINGS_PROVIDER_VIBER: "vonage",
      TIDINGS_VONAGE_APPLICATION_ID: "app",
      TIDINGS_VONAGE_PRIVATE_KEY: "not a key",
      TIDINGS_VONAGE_SIGNATURE_SECRET: "secret",
    });
    expect(badKey).toHaveLength(1);
    expect(badKey[0]).toContain("TIDINGS_VONAGE_PRIVATE_KEY");
  });

  it("Telnyx carries SMS only, and needs its API key and a 32-byte Ed25519 public key", () => {
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER_SMS: "telnyx" })).toEqual([
      "TIDINGS_PROVIDER_SMS is telnyx, which needs TIDINGS_TELNYX_API_KEY, TIDINGS_TELNYX_PUBLIC_KEY: set them.",
    ]);
    expect(errorsOf({ ...TWILIO, TIDINGS_PROVIDER_VIBER: "telnyx" })[0]).toMatch(
      /^TIDINGS_PROVIDER_VIBER is telnyx, but Telnyx carries sms only/,
    );
    const telnyx = {
      ...TWILIO,
      TIDINGS_PROVIDER_SMS: "telnyx",
      TIDINGS_TELNYX_API_KEY: "KEY0123",
      TIDINGS_TELNYX_PUBLIC_KEY: Buffer.alloc(32, 9).toString("base64"),
    };
    const result = read(telnyx);
    expect(result.isOk() && result.value.providers.telnyx).toMatchObject({
      apiKey: "KEY0123",
      messagingProfileId: null,
      apiUrl: "https://api.telnyx.com",
    });
    const short = errorsOf({ ...telnyx, TIDINGS_TELNYX_PUBLIC_KEY: "c2hvcnQ=" });
    expect(short).toEqual([
      "TIDINGS_TELNYX_PUBLIC_KEY must be the account's public key as Mission Control shows it: base64 of 32 bytes.",
    ]);
  });

  it("the sandbox needs nothing", () => {
    const result = read({ TIDINGS_PROVIDER_VIBER: "sandbox", TIDINGS_PROVIDER_SMS: "sandbox" });
    expect(result.isOk() && result.value.providers.twilio).toBeNull();
  });
});
