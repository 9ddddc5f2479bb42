import { fetchTransport } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { checkInfobipCredentials } from "./credentials-check.js";
import { type FakeInfobip, startFakeInfobip } from "./testing/fake-infobip.js";

let fake: FakeInfobip;
afterEach(async () => {
  await fake?.close();
});

describe("checkInfobipCredentials against a fake Infobip", () => {
  it("a key that may read the balance is ok", async () => {
    fake = await startFakeInfobip({ apiKey: "key" });
    expect(
      await checkInfobipCredentials(
        { baseUrl: fake.url, apiKey: "key" },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toEqual({
      outcome: "ok",
      detail: "Infobip balance 42.5 EUR.",
    });
  });

  it("a key with send scopes only is not called refused: cannot check, sending allowed", async () => {
    fake = await startFakeInfobip({ apiKey: "key", sendOnly: true });
    expect(
      await checkInfobipCredentials(
        { baseUrl: fake.url, apiKey: "key" },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toEqual({
      outcome: "skipped",
      detail: expect.stringContaining("cannot check, sending allowed"),
    });
  });

  it("an unknown key is refused", async () => {
    fake = await startFakeInfobip({ apiKey: "key" });
    expect(
      await checkInfobipCredentials(
        { baseUrl: fake.url, apiKey: "other" },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toMatchObject({
      outcome: "refused",
    });
  });
});
