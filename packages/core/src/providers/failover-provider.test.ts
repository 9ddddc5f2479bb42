import { describe, expect, it } from "vitest";
import type { ChannelProvider, DispatchResult, OutboundMessage } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { circuitBreaker } from "./circuit-breaker.js";
import { failoverProvider } from "./failover-provider.js";
import { guardedProvider } from "./guarded-provider.js";
import { httpProvider, type ProviderTransport } from "./http-provider.js";
import { upstreamError } from "./upstream-errors.js";

const MESSAGE: OutboundMessage = {
  messageId: "msg_1",
  channel: "sms",
  sender: "+15550001",
  phoneNumber: "+447911123456",
  body: "Your code is 123456",
  category: "otp",
  ttlSeconds: 600,
};

/** A provider that answers `answers` in order and records what it was given. */
function scripted(name: string, ...answers: DispatchResult[]) {
  const got: Array<{ sender: string; failoverReady: boolean }> = [];
  const provider: ChannelProvider = {
    name,
    textLimit: () => ({ characters: name === "twilio" ? 1600 : 1000, provider: name }),
    async dispatch(message, options) {
      got.push({ sender: message.sender, failoverReady: options?.failoverReady === true });
      return answers.shift() ?? { status: "accepted", providerMessageId: `${name}-id` };
    },
  };
  return { provider, got };
}

const unreachable = (name: string): DispatchResult => ({
  status: "rejected",
  notTaken: "unreachable",
  error: upstreamError("upstream_unavailable", `${name} could not be reached.`, name),
});
const timedOut = (name: string): DispatchResult => ({
  status: "rejected",
  error: upstreamError("upstream_unavailable", `${name} did not answer in time.`, name),
});
const refused = (name: string): DispatchResult => ({
  status: "rejected",
  error: upstreamError("upstream_rejected", `${name} refused the number.`, name, 21211),
});

const VONAGE_SENDERS = { "+15550001": "15550009" };

describe("failoverProvider", () => {
  it("goes on to the next provider at once, from its mapped sender, when the first never got the message", async () => {
    const twilio = scripted("twilio", unreachable("twilio"));
    const vonage = scripted("vonage");
    const failovers: string[] = [];
    const provider = failoverProvider(
      [
        { provider: twilio.provider, senders: null },
        { provider: vonage.provider, senders: VONAGE_SENDERS },
      ],
      { onTimeout: false, onFailover: (from, to) => failovers.push(`${from}>${to}`) },
    );
    const result = await provider.dispatch(MESSAGE);
    expect(result).toEqual({
      status: "accepted",
      providerMessageId: "vonage-id",
      provider: "vonage",
      triedBefore: [{ provider: "twilio", outcome: "unreachable" }],
    });
    expect(twilio.got).toEqual([{ sender: "+15550001", failoverReady: true }]);
    expect(vonage.got).toEqual([{ sender: "15550009", failoverReady: false }]);
    expect(failovers).toEqual(["twilio>vonage"]);
    expect(provider.providerFor?.("sms")).toBe("twilio");
  });

  it("does not fail over after a timeout or 5xx unless opted in, nor after a refusal", async () => {
    for (const [answer, onTimeout, carrier] of [
      [timedOut("twilio"), false, "twilio"],
      [timedOut("twilio"), true, "vonage"],
      [refused("twilio"), true, "twilio"],
    ] as const) {
      const twilio = scripted("twilio", answer);
      const vonage = scripted("vonage");
      const provider = failoverProvider(
        [
          { provider: twilio.provider, senders: null },
          { provider: vonage.provider, senders: VONAGE_SENDERS },
        ],
        { onTimeout },
      );
      const result = await provider.dispatch(MESSAGE);
      expect(result.provider).toBe(carrier);
      expect(vonage.got).toHaveLength(carrier === "vonage" ? 1 : 0);
      expect(result.triedBefore).toEqual(
        carrier === "vonage" ? [{ provider: "twilio", outcome: "unavailable" }] : undefined,
      );
    }
  });

  it("never fails over to a provider that does not map the sender, and says why", async () => {
    const twilio = scripted("twilio", unreachable("twilio"));
    const vonage = scripted("vonage");
    const provider = failoverProvider(
      [
        { provider: twilio.provider, senders: null },
        { provider: vonage.provider, senders: { "+15559999": "15559999" } },
      ],
      { onTimeout: true },
    );
    const result = await provider.dispatch(MESSAGE);
    expect(vonage.got).toEqual([]);
    // The last provider that could carry it is not told a failover is ready: it retries as usual.
    expect(twilio.got).toEqual([{ sender: "+15550001", failoverReady: false }]);
    expect(result).toMatchObject({ status: "rejected", provider: "twilio" });
    expect(result.status === "rejected" && result.error.message).toContain(
      'Not failed over to vonage: no TIDINGS_<PROVIDER>_SENDERS entry for the sender "+15550001".',
    );
  });

  it("keeps the earlier provider's words when the last one fails too", async () => {
    const twilio = scripted("twilio", unreachable("twilio"));
    const vonage = scripted("vonage", refused("vonage"));
    const provider = failoverProvider(
      [
        { provider: twilio.provider, senders: null },
        { provider: vonage.provider, senders: VONAGE_SENDERS },
      ],
      { onTimeout: false },
    );
    const result = await provider.dispatch(MESSAGE);
    expect(result).toMatchObject({
      status: "rejected",
      provider: "vonage",
      error: { code: "upstream_rejected", provider: "vonage", provider_code: "21211" },
    });
    expect(result.status === "rejected" && result.error.message).toBe(
      "vonage refused the number. Tried before: twilio: twilio could not be reached.",
    );
    expect(result.triedBefore).toEqual([{ provider: "twilio", outcome: "unreachable" }]);
  });

  it("fails over at once while the first provider's circuit is open", async () => {
    // Five 5xx answers (which do not fail over) open Twilio's circuit; then it fails over.
    const twilio = scripted("twilio", ...Array.from({ length: 5 }, () => timedOut("twilio")));
    const breaker = circuitBreaker({ clock: manualClock(0), threshold: 5 });
    const vonage = scripted("vonage");
    const provider = failoverProvider(
      [
        { provider: guardedProvider(twilio.provider, breaker), senders: null },
        { provider: vonage.provider, senders: VONAGE_SENDERS },
      ],
      { onTimeout: false },
    );
    for (let i = 0; i < 5; i += 1)
      expect((await provider.dispatch(MESSAGE)).provider).toBe("twilio");
    expect(vonage.got).toHaveLength(0);
    const result = await provider.dispatch(MESSAGE);
    expect(result).toMatchObject({
      status: "accepted",
      provider: "vonage",
      triedBefore: [{ provider: "twilio", outcome: "circuit_open" }],
    });
    expect(twilio.got).toHaveLength(5);
  });

  it("takes the smallest text limit of its list", () => {
    const provider = failoverProvider(
      [
        { provider: scripted("twilio").provider, senders: null },
        { provider: scripted("vonage").provider, senders: VONAGE_SENDERS },
      ],
      { onTimeout: false },
    );
    expect(provider.textLimit?.("sms")).toEqual({ characters: 1000, provider: "vonage" });
  });
});

describe("httpProvider with a failover ready", () => {
  const refusedConnection: ProviderTransport = async () => {
    throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
  };
  const spec = {
    name: "twilio",
    title: "Twilio",
    channels: ["sms"] as const,
    limits: { text: { sms: 1600 }, ttlSeconds: {} },
    retryUnknownOutcome: false,
    request: () => ({ method: "POST" as const, url: "http://127.0.0.1:9/", headers: {} }),
    accepted: () => ({ accepted: true as const, providerMessageId: "SM1" }),
    errorOf: () => ({ said: "no", code: null }),
  };

  it("answers a refused connection at once, marked not taken, instead of trying again", async () => {
    let calls = 0;
    const provider = httpProvider(spec, {
      transport: async (request) => {
        calls += 1;
        return refusedConnection(request);
      },
      random: () => 0,
    });
    const result = await provider.dispatch(MESSAGE, { failoverReady: true });
    expect(result).toMatchObject({ status: "rejected", notTaken: "unreachable" });
    expect(calls).toBe(1);
    const alone = await provider.dispatch(MESSAGE);
    expect(alone).toMatchObject({ status: "rejected", notTaken: "unreachable" });
    expect(calls).toBe(4);
    expect(provider.textLimit?.("sms")).toEqual({ characters: 1600, provider: "twilio" });
  });

  it("marks a 429 and refused credentials not taken, a 5xx not", async () => {
    for (const [status, notTaken] of [
      [429, "rate_limited"],
      [401, "unauthorized"],
      [503, undefined],
    ] as const) {
      const provider = httpProvider(spec, {
        transport: async () => ({ status, headers: {}, body: {} }),
        random: () => 0,
      });
      const result = await provider.dispatch(MESSAGE, { failoverReady: true });
      expect(result.status).toBe("rejected");
      expect(result.notTaken).toBe(notTaken);
    }
  });

  it("says when it clamped the TTL it was asked for, and only then", async () => {
    const provider = httpProvider(
      { ...spec, limits: { text: {}, ttlSeconds: { sms: { min: 60, max: 300 } } } },
      { transport: async () => ({ status: 201, headers: {}, body: {} }), random: () => 0 },
    );
    for (const [ttlSeconds, clamped] of [
      [600, 300],
      [10, 60],
      [120, undefined],
    ] as const) {
      const result = await provider.dispatch({ ...MESSAGE, ttlSeconds });
      expect(result).toMatchObject({ status: "accepted" });
      expect(result.clampedTtlSeconds).toBe(clamped);
    }
  });
});
