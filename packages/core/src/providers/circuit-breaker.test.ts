import { describe, expect, it } from "vitest";
import type { ChannelProvider, DispatchResult, OutboundMessage } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { channelRouter } from "./channel-router.js";
import { circuitBreaker } from "./circuit-breaker.js";
import { guardedProvider } from "./guarded-provider.js";
import { upstreamError } from "./upstream-errors.js";

const message: OutboundMessage = {
  messageId: "m-1",
  channel: "sms",
  sender: "Acme",
  phoneNumber: "+14155552671",
  body: "Hi",
  category: "transactional",
  ttlSeconds: 60,
};

const down: DispatchResult = {
  status: "rejected",
  error: upstreamError("upstream_unavailable", "Timed out.", "twilio"),
};

describe("circuitBreaker", () => {
  it("opens after 5 consecutive unavailable answers, for 30 s, then admits one probe", () => {
    const clock = manualClock();
    const breaker = circuitBreaker({ clock });
    for (let i = 0; i < 4; i += 1) breaker.record("unavailable");
    expect(breaker.state()).toBe("closed");
    breaker.record("ok");
    for (let i = 0; i < 5; i += 1) breaker.record("unavailable");
    expect([breaker.state(), breaker.admit()]).toEqual(["open", false]);
    clock.advance(29_999);
    expect(breaker.admit()).toBe(false);
    clock.advance(1);
    expect([breaker.state(), breaker.admit(), breaker.admit()]).toEqual(["half_open", true, false]);
    breaker.record("ok");
    expect([breaker.state(), breaker.admit()]).toEqual(["closed", true]);
  });

  it("a failed probe opens it again for a whole period", () => {
    const clock = manualClock();
    const breaker = circuitBreaker({ clock, threshold: 1, openMs: 1000 });
    breaker.record("unavailable");
    clock.advance(1000);
    expect(breaker.admit()).toBe(true);
    breaker.record("unavailable");
    expect(breaker.state()).toBe("open");
    clock.advance(999);
    expect(breaker.admit()).toBe(false);
  });
});

describe("guardedProvider", () => {
  it("fails fast while open, naming the provider, then probes and closes", async () => {
    const clock = manualClock();
    let answer: DispatchResult = down;
    let calls = 0;
    const inner: ChannelProvider = {
      name: "twilio",
      dispatch: async () => {
        calls += 1;
        return answer;
      },
    };
    const provider = guardedProvider(inner, circuitBreaker({ clock, threshold: 2 }));
    await provider.dispatch(message);
    await provider.dispatch(message);
    const fast = await provider.dispatch(message);
    expect(calls).toBe(2);
    expect(fast).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable", provider: "twilio" },
    });
    clock.advance(30_000);
    answer = { status: "accepted", providerMessageId: "SM1" };
    expect(await provider.dispatch(message)).toEqual(answer);
    expect(await provider.dispatch(message)).toEqual(answer);
    expect(calls).toBe(4);
  });

  it("a refusal that is not about reachability keeps the circuit closed", async () => {
    const clock = manualClock();
    const refused: DispatchResult = {
      status: "rejected",
      error: upstreamError("upstream_rejected", "Invalid number.", "twilio", 21211),
    };
    const provider = guardedProvider(
      { name: "twilio", dispatch: async () => refused },
      circuitBreaker({ clock, threshold: 1 }),
    );
    await provider.dispatch(message);
    expect(await provider.dispatch(message)).toEqual(refused);
  });

  it("a dispatch that throws counts as unavailable and still throws", async () => {
    const clock = manualClock();
    const breaker = circuitBreaker({ clock, threshold: 1 });
    const provider = guardedProvider(
      {
        name: "twilio",
        dispatch: async () => {
          throw new Error("ECONNRESET");
        },
      },
      breaker,
    );
    await expect(provider.dispatch(message)).rejects.toThrow("ECONNRESET");
    expect(breaker.state()).toBe("open");
  });
});

describe("channelRouter", () => {
  it("hands each channel to its provider and names it on the answer", async () => {
    const got: string[] = [];
    const named = (name: string): ChannelProvider => ({
      name,
      dispatch: async (m) => {
        got.push(`${name}:${m.channel}`);
        return { status: "accepted" };
      },
    });
    const router = channelRouter({ viber: named("infobip"), sms: named("twilio") });
    expect(router.name).toBe("infobip+twilio");
    expect([router.providerFor?.("viber"), router.providerFor?.("sms")]).toEqual([
      "infobip",
      "twilio",
    ]);
    expect(await router.dispatch({ ...message, channel: "viber" })).toEqual({
      status: "accepted",
      provider: "infobip",
    });
    expect(await router.dispatch(message)).toEqual({ status: "accepted", provider: "twilio" });
    expect(got).toEqual(["infobip:viber", "twilio:sms"]);
  });

  it("one provider for both channels is one name, closed once", async () => {
    let closes = 0;
    const one: ChannelProvider = {
      name: "sandbox",
      dispatch: async () => ({ status: "accepted" }),
      close: async () => {
        closes += 1;
      },
    };
    const router = channelRouter({ viber: one, sms: one });
    await router.close?.();
    expect([router.name, closes]).toEqual(["sandbox", 1]);
    expect("onReport" in router).toBe(false);
  });
});
