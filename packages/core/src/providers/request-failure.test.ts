import { describe, expect, it } from "vitest";
import { requestFailure, requestFailureMessage } from "./request-failure.js";

const failed = (code: string, message: string, cause?: unknown) =>
  Object.assign(new Error(message), { code, ...(cause === undefined ? {} : { cause }) });

describe("requestFailure: provably never reached, or may have been taken", () => {
  it.each([
    ["ENOTFOUND", "getaddrinfo ENOTFOUND api.twilio.com", "dns"],
    ["EAI_AGAIN", "getaddrinfo EAI_AGAIN api.twilio.com", "dns"],
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:443", "refused"],
    ["EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.1:443", "refused"],
    ["CERT_HAS_EXPIRED", "certificate has expired", "tls"],
    ["ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match", "tls"],
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate", "tls"],
    ["EPROTO", "wrong version number", "tls"],
    ["UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error", "connect_timeout"],
  ] as const)("%s: nothing was sent (%s)", (code, message, kind) => {
    const failure = requestFailure(failed(code, message), false);
    expect(failure).toEqual({ kind, neverReached: true, cause: message });
    expect(requestFailureMessage("Twilio", failure)).toBe(
      `Twilio could not be reached (${message}); nothing was sent.`,
    );
  });

  it("a code on a wrapped cause counts (fetch-style errors)", () => {
    const wrapped = new TypeError("fetch failed", {
      cause: failed("ENOTFOUND", "getaddrinfo ENOTFOUND api.nexmo.com"),
    });
    expect(requestFailure(wrapped, false)).toMatchObject({ kind: "dns", neverReached: true });
  });

  it("a timeout or a reset may have been taken: not sent again", () => {
    const timeout = requestFailure(failed("UND_ERR_ABORTED", "Request aborted"), true);
    expect(timeout).toEqual({ kind: "timeout", neverReached: false, cause: "no answer in time" });
    expect(requestFailureMessage("Vonage", timeout, { deadlineMs: 10_000 })).toBe(
      "Vonage did not answer within 10000 ms; the message was not sent again, as Vonage may have taken it.",
    );
    const reset = requestFailure(failed("ECONNRESET", "read ECONNRESET"), false);
    expect(reset).toEqual({ kind: "reset", neverReached: false, cause: "read ECONNRESET" });
    expect(requestFailureMessage("Twilio", reset)).toBe(
      "The connection to Twilio failed after the request was sent (read ECONNRESET); the message was not sent again, as Twilio may have taken it.",
    );
    expect(requestFailure(failed("UND_ERR_SOCKET", "other side closed"), false).kind).toBe("reset");
    expect(requestFailure(new Error("something else"), false)).toMatchObject({
      kind: "other",
      neverReached: false,
    });
  });

  it("a refused connection before the deadline fired is still never reached", () => {
    expect(requestFailure(failed("ECONNREFUSED", "connect ECONNREFUSED"), true).neverReached).toBe(
      true,
    );
  });

  it("user info in a URL of the cause is cut", () => {
    const failure = requestFailure(
      failed("ENOTFOUND", "getaddrinfo ENOTFOUND https://AC1:s3cret@api.twilio.com"),
      false,
    );
    expect(failure.cause).not.toContain("s3cret");
  });
});
