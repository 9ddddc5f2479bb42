import { describe, expect, it } from "vitest";
import { DestinationHealth } from "./destination-health.js";

const health = () =>
  new DestinationHealth({ perDestination: 8, failuresToOpen: 3, openMs: 1_000, maxOpenMs: 4_000 });

describe("DestinationHealth: the circuit breaker and the in-flight allowance", () => {
  it("a destination not heard from gets one attempt; an answer of any status gives it all eight", () => {
    const h = health();
    expect(h.allowance("a", 0)).toBe(1);
    expect(h.record("a", "answered", 0)).toBeNull();
    expect(h.allowance("a", 0)).toBe(8);
    expect(h.isAnswering("a")).toBe(true);
  });

  it("opens after three unanswered attempts in a row, probes after openMs, doubles up to the cap", () => {
    const h = health();
    h.record("a", "answered", 0);
    expect(h.record("a", "unreachable", 10)).toBeNull();
    expect(h.allowance("a", 10)).toBe(1);
    expect(h.record("a", "unreachable", 20)).toBeNull();
    expect(h.record("a", "unreachable", 30)).toBe("opened");
    expect(h.openCount()).toBe(1);
    expect(h.allowance("a", 1_029)).toBe(0);
    expect(h.allowance("a", 1_030)).toBe(1);
    // Failed probes: open for 2 s, then 4 s, then still 4 s.
    h.record("a", "unreachable", 1_100);
    expect(h.allowance("a", 3_099)).toBe(0);
    expect(h.allowance("a", 3_100)).toBe(1);
    h.record("a", "unreachable", 3_100);
    expect(h.allowance("a", 7_099)).toBe(0);
    h.record("a", "unreachable", 7_100);
    expect(h.allowance("a", 11_099)).toBe(0);
    expect(h.allowance("a", 11_100)).toBe(1);
    // An attempt that ends while the circuit is open does not lengthen it.
    h.record("a", "unreachable", 8_000);
    expect(h.allowance("a", 11_100)).toBe(1);
    expect(h.record("a", "answered", 11_200)).toBe("closed");
    expect(h.openCount()).toBe(0);
    expect(h.allowance("a", 11_200)).toBe(8);
  });

  it("an answer in between starts the count of unanswered attempts again", () => {
    const h = health();
    h.record("a", "unreachable", 0);
    h.record("a", "unreachable", 1);
    h.record("a", "answered", 2);
    h.record("a", "unreachable", 3);
    expect(h.record("a", "unreachable", 4)).toBeNull();
    expect(h.openCount()).toBe(0);
  });

  it("plans a claim: answering destinations by room, the others passed over once they hold their one", () => {
    const h = health();
    h.record("live", "answered", 0);
    h.record("busy", "answered", 0);
    h.record("down", "unreachable", 0);
    h.record("dead", "unreachable", 0);
    h.record("dead", "unreachable", 0);
    h.record("dead", "unreachable", 0);
    const running = new Map([
      ["live", 3],
      ["busy", 8],
      ["down", 1],
      ["new", 1],
    ]);
    const plan = h.plan(running, 10);
    expect(plan.answeringByRoom).toEqual(new Map([[5, ["live"]]]));
    expect(plan.passedOver.sort()).toEqual(["busy", "dead", "down", "live", "new"]);
    expect(plan.unprovenRunning).toBe(2);
  });

  it("forgets destinations idle for forgetAfterMs, but not one with an attempt in flight", () => {
    const h = new DestinationHealth({ perDestination: 8, forgetAfterMs: 100 });
    h.record("idle", "answered", 0);
    h.record("busy", "answered", 0);
    h.forgetIdle(100, (key) => key === "busy");
    expect(h.isAnswering("idle")).toBe(false);
    expect(h.isAnswering("busy")).toBe(true);
  });
});
