import { describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.js";
import { retryAfterMs } from "./retry-after.js";
import { backoffMs, type UpstreamTry, withUpstreamRetries } from "./upstream-retry.js";

/** A retry setup on a manual clock whose sleeps move the clock and are remembered. */
function setup(deadlineMs = 10_000) {
  const clock = manualClock();
  const waits: number[] = [];
  const options = {
    deadlineMs,
    clock,
    random: () => 0.5,
    sleep: async (ms: number) => {
      waits.push(ms);
      clock.advance(ms);
    },
  };
  return { clock, waits, options };
}

const retry = (value: string, retryAfter: number | null = null): UpstreamTry<string> => ({
  retry: true,
  value,
  retryAfterMs: retryAfter,
});

describe("withUpstreamRetries: 429 and refused connections, within one deadline", () => {
  it("a final answer ends at once", async () => {
    const { options, waits } = setup();
    let tries = 0;
    const value = await withUpstreamRetries(async () => {
      tries += 1;
      return { retry: false, value: "accepted" };
    }, options);
    expect([value, tries, waits]).toEqual(["accepted", 1, []]);
  });

  it("tries three times at most, with full-jitter backoff, and answers the last value", async () => {
    const { options, waits } = setup();
    let tries = 0;
    const value = await withUpstreamRetries(async () => {
      tries += 1;
      return retry(`busy ${tries}`);
    }, options);
    expect(value).toBe("busy 3");
    expect(waits).toEqual([50, 100]);
  });

  it("waits at least the upstream's Retry-After", async () => {
    const { options, waits } = setup();
    let tries = 0;
    const value = await withUpstreamRetries(async () => {
      tries += 1;
      return tries === 1 ? retry("busy", 2000) : { retry: false, value: "accepted" };
    }, options);
    expect([value, waits]).toEqual(["accepted", [2000]]);
  });

  it("does not wait when the Retry-After ends past the deadline: the last answer stands", async () => {
    const { options, waits } = setup(1000);
    let tries = 0;
    const value = await withUpstreamRetries(async () => {
      tries += 1;
      return retry("busy", 5000);
    }, options);
    expect([value, tries, waits]).toEqual(["busy", 1, []]);
  });

  it("each try is told the time left and gets the deadline's signal", async () => {
    const { options, clock } = setup(3000);
    const seen: Array<[number, boolean]> = [];
    await withUpstreamRetries(async (signal, remaining) => {
      seen.push([remaining, signal.aborted]);
      clock.advance(1000);
      return retry("busy");
    }, options);
    expect(seen).toEqual([
      [3000, false],
      [1950, false],
      [850, false],
    ]);
  });

  it("the deadline's signal aborts a try that hangs", async () => {
    const value = await withUpstreamRetries(
      (signal) =>
        new Promise<UpstreamTry<string>>((resolve) => {
          signal.addEventListener("abort", () => resolve({ retry: false, value: "timed out" }));
        }),
      { deadlineMs: 20, clock: manualClock() },
    );
    expect(value).toBe("timed out");
  });
});

describe("backoffMs", () => {
  it("doubles its ceiling per try up to the cap", () => {
    const top = { random: () => 0.999_999 };
    expect([1, 2, 3, 4, 6, 10].map((n) => backoffMs(n, null, top))).toEqual([
      99, 199, 399, 799, 2999, 2999,
    ]);
  });
});

describe("retryAfterMs", () => {
  const now = Date.UTC(2026, 0, 1);
  it("reads whole seconds and HTTP dates; nothing else", () => {
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs("-1", now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
