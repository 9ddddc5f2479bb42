import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../deps.js";
import { baseDelay, nextAttemptAt, parseRetryAfter } from "./retry-schedule.js";

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const config = defaultConfig;
const WINDOW = 72 * HOUR;
const CAP = 6 * HOUR;
const FIRST = Date.UTC(2026, 0, 1);

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const attemptsArb = fc.integer({ min: 1, max: 80 });

describe("retry schedule (docs/decisions.md: Retries)", () => {
  it("the base delay starts at 30 s and doubles up to the 6 h cap, never decreasing", () => {
    expect([1, 2, 3, 4].map((n) => baseDelay(n, config))).toEqual([
      30 * SECOND,
      60 * SECOND,
      120 * SECOND,
      240 * SECOND,
    ]);
    expect(baseDelay(11, config)).toBe(CAP);
    expect(baseDelay(10_000, config)).toBe(CAP);
    fc.assert(
      fc.property(attemptsArb, (n) => {
        expect(baseDelay(n + 1, config)).toBeGreaterThanOrEqual(baseDelay(n, config));
        expect(baseDelay(n + 1, config)).toBe(Math.min(CAP, 2 * baseDelay(n, config)));
      }),
    );
  });

  it("jitter keeps the delay within [0.8 × base, min(1.2 × base, cap)] while inside the window", () => {
    fc.assert(
      fc.property(attemptsArb, fc.nat({ max: WINDOW - 1 }), unit, (attempts, elapsed, r) => {
        const now = FIRST + elapsed;
        const at = nextAttemptAt({ attempts, firstAttemptAt: FIRST, now, random: () => r }, config);
        expect(at).not.toBeNull();
        const base = baseDelay(attempts, config);
        const delay = (at as number) - now;
        const upper = Math.ceil(Math.min(1.2 * base, CAP));
        expect(delay).toBeLessThanOrEqual(upper);
        if ((at as number) < FIRST + WINDOW) {
          expect(delay).toBeGreaterThanOrEqual(Math.floor(0.8 * base));
        } else {
          // Clamped to the window's end: only when the jittered delay could reach past it.
          expect(now + upper).toBeGreaterThanOrEqual(FIRST + WINDOW);
        }
      }),
    );
  });

  it("delays grow in expectation: for the same random draw, a later attempt never waits less", () => {
    fc.assert(
      fc.property(attemptsArb, unit, (attempts, r) => {
        const delay = (n: number) =>
          (nextAttemptAt(
            { attempts: n, firstAttemptAt: FIRST, now: FIRST, random: () => r },
            config,
          ) as number) - FIRST;
        expect(delay(attempts + 1)).toBeGreaterThanOrEqual(delay(attempts));
      }),
    );
  });

  it("never schedules past 72 h after the first attempt, then answers null (failed)", () => {
    fc.assert(
      fc.property(
        attemptsArb,
        fc.integer({ min: 0, max: 2 * WINDOW }),
        unit,
        fc.option(fc.nat({ max: 2 * WINDOW })),
        (attempts, elapsed, r, retryAfterMs) => {
          const now = FIRST + elapsed;
          const at = nextAttemptAt(
            {
              attempts,
              firstAttemptAt: FIRST,
              now,
              random: () => r,
              retryAfterMs: retryAfterMs ?? undefined,
            },
            config,
          );
          if (now >= FIRST + WINDOW) {
            expect(at).toBeNull();
          } else {
            expect(at).not.toBeNull();
            expect(at as number).toBeGreaterThan(now);
            expect(at as number).toBeLessThanOrEqual(FIRST + WINDOW);
          }
        },
      ),
    );
  });

  it("a whole run of failures: strictly later attempts, the last exactly at the window's end, then failed", () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 64, maxLength: 64 }), (draws) => {
        const times = [FIRST];
        let now = FIRST;
        for (let attempts = 1; ; attempts++) {
          const at = nextAttemptAt(
            { attempts, firstAttemptAt: FIRST, now, random: () => draws[attempts % 64] ?? 0 },
            config,
          );
          if (at === null) break;
          expect(at).toBeGreaterThan(now);
          times.push(at);
          now = at;
          expect(attempts).toBeLessThan(64);
        }
        expect(times.at(-1)).toBe(FIRST + WINDOW);
        // 30 s doubling to 6 h, then 6 h steps, over 72 h: a bounded number of attempts.
        expect(times.length).toBeGreaterThanOrEqual(20);
        expect(times.length).toBeLessThanOrEqual(30);
      }),
    );
  });

  it("schedules one final attempt at the window's end when the next would land past it", () => {
    const end = FIRST + WINDOW;
    const input = { attempts: 20, firstAttemptAt: FIRST, random: () => 0.5 };
    expect(nextAttemptAt({ ...input, now: end - HOUR }, config)).toBe(end);
    expect(nextAttemptAt({ ...input, now: end - 1 }, config)).toBe(end);
    expect(nextAttemptAt({ ...input, now: end }, config)).toBeNull();
    expect(nextAttemptAt({ ...input, now: end + HOUR }, config)).toBeNull();
  });

  it("honours a 429's Retry-After when longer than the backoff, never beyond the cap", () => {
    const input = { attempts: 1, firstAttemptAt: FIRST, now: FIRST, random: () => 0.5 };
    expect(nextAttemptAt({ ...input, retryAfterMs: HOUR }, config)).toBe(FIRST + HOUR);
    expect(nextAttemptAt({ ...input, retryAfterMs: 24 * HOUR }, config)).toBe(FIRST + CAP);
    // Shorter than the backoff: the backoff wins (0.5 draw = exactly the base delay).
    expect(nextAttemptAt({ ...input, retryAfterMs: SECOND }, config)).toBe(FIRST + 30 * SECOND);
    // Never past the window either.
    const late = { ...input, attempts: 15, now: FIRST + WINDOW - HOUR };
    expect(nextAttemptAt({ ...late, retryAfterMs: 5 * HOUR }, config)).toBe(FIRST + WINDOW);
  });

  it("the first retry comes 30 s after the first attempt (jitter at its midpoint)", () => {
    const at = nextAttemptAt(
      { attempts: 1, firstAttemptAt: FIRST, now: FIRST, random: () => 0.5 },
      config,
    );
    expect(at).toBe(FIRST + 30 * SECOND);
  });
});

describe("parseRetryAfter (RFC 9110 Retry-After)", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("120", now)).toBe(120 * SECOND);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
  });

  it("reads an HTTP-date as the time left until it, 0 when it is past", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:05:00 GMT", now)).toBe(5 * 60 * SECOND);
    expect(parseRetryAfter("Thursday, 01-Jan-26 12:00:30 GMT", now)).toBe(30 * SECOND);
    expect(parseRetryAfter("Thu Jan  1 12:01:00 2026", now)).toBe(60 * SECOND);
    expect(parseRetryAfter("Wed, 31 Dec 2025 12:00:00 GMT", now)).toBe(0);
  });

  it("answers undefined for an absent or unreadable value", () => {
    for (const value of [undefined, "", "soon", "-5", "1.5", "1e3", "2026-01-01", "12:00"]) {
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
    }
  });
});
