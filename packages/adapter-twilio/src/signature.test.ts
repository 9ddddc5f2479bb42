import fc from "fast-check";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { formParams, twilioSignature, verifyTwilioSignature } from "./signature.js";

const TOKEN = "12345";

describe("X-Twilio-Signature, checked against the official twilio package", () => {
  it("matches the example of Twilio's documentation", () => {
    const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
    const params = {
      CallSid: "CA1234567890ABCDE",
      Caller: "+12349013030",
      Digits: "1234",
      From: "+12349013030",
      To: "+18005551212",
    };
    expect(twilioSignature(TOKEN, url, params)).toBe("0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
    expect(verifyTwilioSignature(TOKEN, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url, params).ok).toBe(true);
  });

  const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,11}$/);
  const value = fc.string({ maxLength: 20, unit: "grapheme" });
  const params = fc.dictionary(name, value, { maxKeys: 12 });
  const query = fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), value), { maxLength: 3 });
  const host = fc.constantFrom("tidings.example.com", "127.0.0.1", "engine.example");
  const scheme = fc.constantFrom("https", "http");

  it("verifies whatever twilio signs, in any parameter order, with any query encoding", () => {
    fc.assert(
      fc.property(params, query, host, scheme, fc.boolean(), (form, pairs, h, s, explicitPort) => {
        const search = new URLSearchParams(pairs).toString();
        const port = explicitPort ? (s === "https" ? ":443" : ":80") : "";
        const received = `${s}://${h}/providers/twilio/status${search ? `?${search}` : ""}`;
        const signedUrl = `${s}://${h}${port}/providers/twilio/status${search ? `?${search}` : ""}`;
        const signature = twilio.getExpectedTwilioSignature(TOKEN, signedUrl, form);
        // The form as it arrives: any order of its fields.
        const body = new URLSearchParams(Object.entries(form).reverse()).toString();
        expect(verifyTwilioSignature(TOKEN, signature, received, formParams(body)).ok).toBe(true);
        expect(twilio.validateRequest(TOKEN, signature, received, formParams(body))).toBe(true);
      }),
    );
  });

  it("refuses what twilio refuses: another token, another URL, another field", () => {
    fc.assert(
      fc.property(params, value, (form, extra) => {
        const url = "https://tidings.example.com/providers/twilio/status?m=abc";
        const signature = twilio.getExpectedTwilioSignature(TOKEN, url, form);
        expect(verifyTwilioSignature("54321", signature, url, form).ok).toBe(false);
        expect(verifyTwilioSignature(TOKEN, signature, `${url}d`, form).ok).toBe(false);
        const more = { ...form, ZExtra: extra };
        expect(verifyTwilioSignature(TOKEN, signature, url, more).ok).toBe(false);
        expect(verifyTwilioSignature(TOKEN, "", url, form).ok).toBe(false);
      }),
    );
  });

  it("accepts a signature over an escaped query (param'WithQuote and param%27WithQuote)", () => {
    const url = "https://example.com/path?query=param'WithQuote";
    const escaped = "https://example.com/path?query=param%27WithQuote";
    const form = { Body: "hi" };
    expect(verifyTwilioSignature(TOKEN, twilioSignature(TOKEN, escaped, form), url, form).ok).toBe(
      true,
    );
    expect(verifyTwilioSignature(TOKEN, twilioSignature(TOKEN, url, form), escaped, form).ok).toBe(
      true,
    );
  });

  it("a repeated field signs every value, de-duplicated and sorted, as twilio does", () => {
    const url = "https://example.com/status";
    const body = "MediaUrl=b&MediaUrl=a&MediaUrl=b&To=%2B1";
    const form = formParams(body);
    expect(form).toEqual({ MediaUrl: ["b", "a", "b"], To: "+1" });
    const signature = twilio.getExpectedTwilioSignature(TOKEN, url, form);
    expect(verifyTwilioSignature(TOKEN, signature, url, form).ok).toBe(true);
  });
});
