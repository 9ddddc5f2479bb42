import { describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.js";
import {
  credentialsRefusal,
  jsonOrEmpty,
  UNAUTHORIZED_LOG_EVERY_MS,
  upstreamRateLimited,
} from "./upstream-answers.js";

describe("the answers every provider adapter shares", () => {
  it("fails each send on refused credentials, logging it at most once a minute", () => {
    const clock = manualClock(0);
    const logged: unknown[] = [];
    const refuse = credentialsRefusal({
      provider: "acme",
      clock,
      logger: { error: (msg, fields) => logged.push({ msg, fields }) },
      logLine: "Acme refused the key",
      refusal: "Acme refused Tidings' key",
    });
    const first = refuse(401, "bad key", 20003);
    refuse(401, "bad key", 20003);
    clock.advance(UNAUTHORIZED_LOG_EVERY_MS);
    refuse(403, "bad key", null);
    expect(first).toEqual({
      retry: false,
      value: {
        status: "rejected",
        error: {
          code: "upstream_unauthorized",
          message: "Acme refused Tidings' key: bad key",
          provider: "acme",
          provider_code: "20003",
        },
      },
    });
    expect(logged).toEqual([
      { msg: "Acme refused the key", fields: { provider: "acme", status: 401, code: 20003 } },
      { msg: "Acme refused the key", fields: { provider: "acme", status: 403, code: null } },
    ]);
  });

  it("retries a 429 no sooner than its Retry-After", () => {
    expect(upstreamRateLimited("acme", "slow down", null, "3", 0)).toMatchObject({
      retry: true,
      retryAfterMs: 3000,
      value: { status: "rejected", error: { code: "upstream_unavailable" } },
    });
  });

  it("reads a body that is not a JSON object (HTML, an array, null) as empty", async () => {
    const body = (text: string) => ({ json: async () => JSON.parse(text) as unknown });
    expect(await jsonOrEmpty(body("<html>"))).toEqual({});
    expect(await jsonOrEmpty(body("[1]"))).toEqual({});
    expect(await jsonOrEmpty(body("null"))).toEqual({});
    expect(await jsonOrEmpty(body('{"a":1}'))).toEqual({ a: 1 });
  });
});
