import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readConfig } from "./config.js";
import { providersInUse } from "./provider-config.js";

const cwd = mkdtempSync(join(tmpdir(), "tidings-failover-config-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const ACCOUNTS = {
  TIDINGS_PUBLIC_URL: "https://tidings.example.com",
  TIDINGS_TWILIO_ACCOUNT_SID: `AC${"a".repeat(32)}`,
  TIDINGS_TWILIO_AUTH_TOKEN: "token",
  TIDINGS_VONAGE_APPLICATION_ID: "aaaaaaaa-bbbb-cccc-dddd-0123456789ab",
  TIDINGS_VONAGE_PRIVATE_KEY: privateKey,
  TIDINGS_VONAGE_SIGNATURE_SECRET: "secret",
  TIDINGS_INFOBIP_BASE_URL: "https://xyz.api.infobip.com",
  TIDINGS_INFOBIP_API_KEY: "key",
};
const read = (env: Record<string, string>) => readConfig({ ...ACCOUNTS, ...env }, cwd);
const errorsOf = (env: Record<string, string>): string[] => {
  const result = read(env);
  if (result.isOk()) throw new Error("expected the configuration to be refused");
  return result.error;
};

describe("failover settings (ordered provider lists, TIDINGS_<PROVIDER>_SENDERS)", () => {
  it("reads an ordered list per channel, the senders of each provider and the timeout switch", () => {
    const result = read({
      TIDINGS_PROVIDER_SMS: "twilio, vonage",
      TIDINGS_PROVIDER_VIBER: "infobip,vonage",
      TIDINGS_VONAGE_SENDERS: '{"+14155550100":"14155550100","Acme":"AcmeVB"}',
      TIDINGS_FAILOVER_ON_TIMEOUT: "1",
    });
    const providers = result._unsafeUnwrap().providers;
    expect([providers.viber, providers.sms]).toEqual(["infobip", "twilio"]);
    expect(providers.failover).toEqual({
      viber: ["infobip", "vonage"],
      sms: ["twilio", "vonage"],
      onTimeout: true,
      senders: { vonage: { "+14155550100": "14155550100", Acme: "AcmeVB" } },
    });
    expect(providersInUse(providers).sort()).toEqual(["infobip", "twilio", "vonage"]);
    expect(providers.vonage).not.toBeNull();
  });

  it("refuses a provider named twice, one that lacks the channel, bad senders and a bad switch", () => {
    expect(errorsOf({ TIDINGS_PROVIDER_SMS: "twilio,twilio" })).toEqual([
      'TIDINGS_PROVIDER_SMS names a provider twice: "twilio,twilio".',
    ]);
    expect(errorsOf({ TIDINGS_PROVIDER_VIBER: "infobip,twilio" })[0]).toMatch(
      /^TIDINGS_PROVIDER_VIBER is twilio, but Twilio carries sms only/,
    );
    expect(
      errorsOf({
        TIDINGS_PROVIDER_SMS: "twilio,vonage",
        TIDINGS_VONAGE_SENDERS: '["14155550100"]',
        TIDINGS_FAILOVER_ON_TIMEOUT: "yes",
      }),
    ).toEqual([
      'TIDINGS_FAILOVER_ON_TIMEOUT must be 1 (a timeout or 5xx fails over too) or 0, not "yes".',
      'TIDINGS_VONAGE_SENDERS must be a JSON object of a campaign\'s sender to the sender on that provider, e.g. {"+15550001":"15550001"}.',
    ]);
  });

  it("refuses a Viber list whose later providers map no sender: no Viber message could fail over", () => {
    expect(errorsOf({ TIDINGS_PROVIDER_VIBER: "infobip,vonage" })).toEqual([
      "TIDINGS_PROVIDER_VIBER lists infobip,vonage, but TIDINGS_VONAGE_SENDERS maps no sender, so no Viber message could fail over: map each campaign's Viber service id to the one on vonage.",
    ]);
    // An SMS list may go without: its later providers then carry nothing (each send says why).
    expect(read({ TIDINGS_PROVIDER_SMS: "twilio,vonage" }).isOk()).toBe(true);
  });
});
