import { fetchTransport } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { checkTwilioCredentials } from "./credentials-check.js";
import { type FakeTwilio, startFakeTwilio } from "./testing/fake-twilio.js";

const ACCOUNT = `AC${"4".repeat(32)}`;
const KEY = `SK${"5".repeat(32)}`;

let fake: FakeTwilio;
afterEach(async () => {
  await fake?.close();
});

describe("checkTwilioCredentials against a fake Twilio", () => {
  it("an auth token that sends is ok", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
    expect(
      await checkTwilioCredentials(
        { accountSid: ACCOUNT, authToken: "token", apiUrl: fake.url },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toEqual({ outcome: "ok", detail: `Twilio accepted the auth token of account ${ACCOUNT}.` });
  });

  it("a Standard API key, which cannot read the account but sends fine, is ok", async () => {
    fake = await startFakeTwilio({
      accountSid: ACCOUNT,
      authToken: "token",
      apiKeySid: KEY,
      apiKeySecret: "key-secret",
    });
    const check = await checkTwilioCredentials(
      {
        accountSid: ACCOUNT,
        authToken: "token",
        apiKeySid: KEY,
        apiKeySecret: "key-secret",
        apiUrl: fake.url,
      },
      { timeoutMs: 10_000, transport: fetchTransport },
    );
    expect(check.outcome).toBe("ok");
    expect(check.detail).not.toContain("key-secret");
  });

  it("a wrong secret is refused", async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
    expect(
      await checkTwilioCredentials(
        { accountSid: ACCOUNT, authToken: "wrong", apiUrl: fake.url },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toMatchObject({ outcome: "refused" });
  });
});
