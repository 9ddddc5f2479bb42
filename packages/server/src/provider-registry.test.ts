import { describe, expect, it } from "vitest";
import {
  channelsOf,
  PROVIDER_LIMITS,
  PROVIDER_NAMES,
  textLimitOf,
  ttlRangeOf,
} from "./provider-registry.js";

describe("the provider registry", () => {
  it("names the sandbox and every plugin, each with its channels and limits as data", () => {
    expect(PROVIDER_NAMES).toEqual(["sandbox", "twilio", "infobip", "vonage", "telnyx"]);
    expect(channelsOf("telnyx")).toEqual(["sms"]);
    expect(channelsOf("sandbox")).toEqual(["viber", "sms"]);
    expect(PROVIDER_LIMITS.twilio.text).toEqual({ sms: 1600 });
    expect(PROVIDER_LIMITS.sandbox).toEqual({ text: {}, ttlSeconds: {} });
  });

  it("the text limit of a list of providers is the smallest, with the provider that sets it", () => {
    expect(textLimitOf(["twilio", "vonage"], "sms")).toEqual({ limit: 1000, provider: "vonage" });
    expect(textLimitOf(["telnyx", "twilio"], "sms")).toEqual({ limit: 1530, provider: "telnyx" });
    expect(textLimitOf(["sandbox"], "viber")).toBeNull();
    expect(textLimitOf(["twilio"], "viber")).toBeNull();
  });

  it("the TTL range is per provider and channel; none where a provider takes any", () => {
    expect(ttlRangeOf("vonage", "viber")).toEqual({ min: 30, max: 259_200 });
    expect(ttlRangeOf("telnyx", "sms")).toBeNull();
  });
});
