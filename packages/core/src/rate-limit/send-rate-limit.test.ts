import { describe, expect, it } from "vitest";
import { defaultConfig } from "../deps.js";
import { manualClock } from "../support/clock.js";
import { memoryStorage } from "../testing/memory/index.js";
import {
  checkSendRateLimit,
  rateLimitedError,
  rateLimitHeaders,
  retryAfterSeconds,
} from "./send-rate-limit.js";

function setup(config = defaultConfig) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const deps = { storage: memoryStorage(), clock, config };
  const hit = (apiKeyId = "key_a") => checkSendRateLimit(deps, apiKeyId);
  return { clock, deps, hit };
}

describe("send rate limit (docs/api.md Rate limit, docs/decisions.md Rate limit)", () => {
  it("100 sends per API key in a sliding 60-second window; the 101st is refused", async () => {
    const { hit } = setup();
    for (let i = 1; i <= 100; i += 1) {
      expect(await hit()).toMatchObject({ allowed: true, limit: 100, remaining: 100 - i });
    }
    const refused = await hit();
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: 60_000 });
  });

  it("the window slides: a hit leaves exactly 60 s after it was made, not before", async () => {
    const { clock, hit } = setup({ ...defaultConfig, sendRateLimit: 2 });
    await hit();
    clock.advance(10_000);
    await hit();
    clock.advance(49_999);
    expect(await hit()).toMatchObject({ allowed: false, resetMs: 1 });
    clock.advance(1);
    // The first hit (60 s old) has left; the second (50 s old) still counts.
    expect(await hit()).toMatchObject({ allowed: true, remaining: 0, resetMs: 10_000 });
    expect(await hit()).toMatchObject({ allowed: false });
  });

  it("resetMs runs until the oldest counted hit leaves, also while there is room", async () => {
    const { clock, hit } = setup({ ...defaultConfig, sendRateLimit: 3 });
    expect(await hit()).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    clock.advance(15_500);
    expect(await hit()).toMatchObject({ allowed: true, remaining: 1, resetMs: 44_500 });
    clock.advance(44_500);
    // The first hit has left: Remaining went up, and the second is now the oldest.
    expect(await hit()).toMatchObject({ allowed: true, remaining: 1, resetMs: 15_500 });
  });

  it("is counted per API key", async () => {
    const { hit } = setup({ ...defaultConfig, sendRateLimit: 1 });
    expect((await hit("key_a")).allowed).toBe(true);
    expect((await hit("key_a")).allowed).toBe(false);
    expect((await hit("key_b")).allowed).toBe(true);
  });

  it("limits come from configuration", async () => {
    const { hit, clock } = setup({ ...defaultConfig, sendRateLimit: 3, sendRateWindowMs: 1000 });
    for (let i = 0; i < 3; i += 1) expect((await hit()).allowed).toBe(true);
    expect((await hit()).allowed).toBe(false);
    clock.advance(1000);
    expect((await hit()).allowed).toBe(true);
  });

  it("Retry-After is whole seconds, rounded up, never less than 1", () => {
    const decision = (resetMs: number) => ({ allowed: false, limit: 100, remaining: 0, resetMs });
    expect(retryAfterSeconds(decision(1))).toBe(1);
    expect(retryAfterSeconds(decision(1000))).toBe(1);
    expect(retryAfterSeconds(decision(1001))).toBe(2);
    expect(retryAfterSeconds(decision(0))).toBe(1);
    expect(retryAfterSeconds(decision(60_000))).toBe(60);
  });

  it("RateLimit-Reset is whole seconds rounded up, 0 only when nothing is counted", () => {
    const reset = (resetMs: number) =>
      rateLimitHeaders({ allowed: true, limit: 100, remaining: 99, resetMs })["RateLimit-Reset"];
    expect(reset(60_000)).toBe("60");
    expect(reset(59_001)).toBe("60");
    expect(reset(1)).toBe("1");
    expect(reset(0)).toBe("0");
  });

  it("RateLimit-* headers on every answer; Retry-After only on a refusal", () => {
    expect(rateLimitHeaders({ allowed: true, limit: 100, remaining: 42, resetMs: 0 })).toEqual({
      "RateLimit-Limit": "100",
      "RateLimit-Remaining": "42",
      "RateLimit-Reset": "0",
    });
    expect(rateLimitHeaders({ allowed: false, limit: 100, remaining: 0, resetMs: 1500 })).toEqual({
      "RateLimit-Limit": "100",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "2",
      "Retry-After": "2",
    });
  });

  it("a refusal is the 429 domain error rate_limited with the seconds to wait", () => {
    expect(rateLimitedError({ allowed: false, limit: 100, remaining: 0, resetMs: 30_500 })).toEqual(
      {
        type: "rate_limited",
        code: "rate_limited",
        message:
          "Too many send requests for this API key: at most 100 per window. Retry after 31 seconds.",
        retryAfterSeconds: 31,
      },
    );
  });
});
