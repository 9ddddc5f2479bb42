import {
  type ChannelProvider,
  defaultConfig,
  SANDBOX_NUMBERS,
  StorageBusyError,
} from "@tidings/core";
import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { type SpecWorld, specWorld } from "./testing/world-with-spec.js";

const SEND = "/v1/messages/send";
/** The phone number otpBody sends to. */
const PHONE = "+14155550100";

/**
 * A provider whose dispatches answer only once `release()` is called, if ever; `handedOff`
 * resolves at the first dispatch, and `dispatches()` counts them.
 */
function heldProvider() {
  let dispatches = 0;
  let release: () => void = () => undefined;
  let dispatching: () => void = () => undefined;
  const handedOff = new Promise<void>((resolve) => {
    dispatching = resolve;
  });
  const provider: ChannelProvider = {
    name: "held",
    dispatch: () => {
      dispatches += 1;
      dispatching();
      return new Promise((resolve) => {
        release = () => resolve({ status: "accepted" });
      });
    },
  };
  return { provider, handedOff, release: () => release(), dispatches: () => dispatches };
}

async function send(world: SpecWorld, body: unknown, headers: Record<string, string> = {}) {
  return world.call("POST", SEND, SEND, { body, headers });
}

/** A send with Idempotency-Key `key` held in its hand-off to the provider; `again` repeats it. */
async function sendHeldInHandOff(key: string) {
  const world = await specWorld();
  const campaign = await world.campaign();
  const held = heldProvider();
  world.deps.provider = held.provider;
  const again = () => send(world, otpBody(campaign.campaign_id), { "idempotency-key": key });
  const first = again();
  await held.handedOff;
  return { world, held, first, again };
}

describe("POST /v1/messages/send", () => {
  it("answers 200 with the dispatch result and the RateLimit headers", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const sent = await send(world, otpBody(campaign.campaign_id, { client_reference: "order-7" }));
    expect(sent.status).toBe(200);
    expect(sent.json).toEqual({
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: "sent",
      client_reference: "order-7",
      error: null,
    });
    expect(sent.headers["ratelimit-limit"]).toBe("100");
    expect(sent.headers["ratelimit-remaining"]).toBe("99");
    expect(sent.headers["ratelimit-reset"]).toBe("60");
  });

  it("RateLimit-Reset is the whole seconds until the oldest counted send leaves the window", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const headersOf = async () => {
      const answer = await send(world, otpBody(campaign.campaign_id));
      expect(answer.status).toBe(200);
      return [answer.headers["ratelimit-remaining"], answer.headers["ratelimit-reset"]];
    };
    expect(await headersOf()).toEqual(["99", "60"]);
    world.clock.advance(20_250);
    // The first send, 20.25 s old, leaves in 39.75 s: rounded up.
    expect(await headersOf()).toEqual(["98", "40"]);
    world.clock.advance(39_750);
    // The first send has left (Remaining went up); the second, 39.75 s old, is the oldest.
    expect(await headersOf()).toEqual(["98", "21"]);
    world.clock.advance(60_000);
    expect(await headersOf()).toEqual(["99", "60"]);
  });

  it("200: an upstream refusal is still 200, with status failed and the error filled", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const refused = await send(world, {
      ...otpBody(campaign.campaign_id),
      recipient: { type: "phone_number", value: SANDBOX_NUMBERS.rejected },
    });
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({
      status: "failed",
      error: { code: expect.any(String), message: expect.any(String) },
    });
  });

  it("400: missing template variable, missing pin, long or linked value, inactive campaign", async () => {
    const world = await specWorld();
    const otp = await world.campaign();
    const viber = await world.campaign({
      channel: "viber",
      category: "transactional",
      template: "Hi {{name}}, order {{order}}.",
    });
    const inactive = await world.campaign({ status: "inactive" });
    const cases: Array<[string, unknown]> = [
      ["missing variable", otpBody(viber.campaign_id, { params: { name: "Ada" } })],
      ["missing pin", otpBody(otp.campaign_id, { params: {} })],
      ["empty pin", otpBody(otp.campaign_id, { params: { pin: "" } })],
      [
        "value over 125",
        otpBody(viber.campaign_id, { params: { name: "x".repeat(126), order: "1" } }),
      ],
      ["link", otpBody(viber.campaign_id, { params: { name: "see evil.com", order: "1" } })],
      ["inactive campaign", otpBody(inactive.campaign_id)],
    ];
    for (const [name, body] of cases) {
      const answer = await send(world, body);
      expect(answer.status, name).toBe(400);
      expect(answer.headers["content-type"], name).toBe("application/problem+json");
      expect(answer.headers["ratelimit-remaining"], name).toBeDefined();
    }
  });

  it("a query string is 400 naming it, counted and with the RateLimit headers like any 400", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const answer = await world.call("POST", SEND, `${SEND}?dry_run=1`, {
      body: otpBody(campaign.campaign_id),
    });
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toEqual([{ path: "dry_run", message: expect.any(String) }]);
    expect(answer.headers["ratelimit-remaining"]).toBe("99");
    expect(world.provider.dispatched).toHaveLength(0);
  });

  it("400: an email recipient matching two profiles is ambiguous", async () => {
    const world = await specWorld();
    const campaign = await world.campaign({ category: "transactional", template: "Hi." });
    for (const phone of ["+14155550101", "+14155550102"]) {
      await world.request("POST", "/v1/profiles", {
        body: { phone_number: phone, email: "twin@example.com" },
      });
    }
    const answer = await send(world, {
      campaign_id: campaign.campaign_id,
      recipient: { type: "email", value: "twin@example.com" },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe("ambiguous_recipient");
  });

  it("403: promotional without opt-in says consent was not found for the profile", async () => {
    const world = await specWorld();
    const campaign = await world.campaign({ category: "promotional", template: "Sale!" });
    await world.request("POST", "/v1/profiles", { body: { phone_number: PHONE } });
    const answer = await send(world, otpBody(campaign.campaign_id, { params: {} }));
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe("consent_missing");
    expect(String(answer.json.detail).toLowerCase()).toContain("promotional consent");
  });

  it("404: unknown campaign, or a promotional recipient with no profile", async () => {
    const world = await specWorld();
    const unknown = await send(world, otpBody("cmp_00000000000000000000000000"));
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe("campaign_not_found");
    const promo = await world.campaign({ category: "promotional", template: "Sale!" });
    const noProfile = await send(world, otpBody(promo.campaign_id, { params: {} }));
    expect(noProfile.status).toBe(404);
  });

  it("401 and 403: no key, or a key without messages:send (neither is counted)", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const anonymous = await world.call("POST", SEND, SEND, {
      body: otpBody(campaign.campaign_id),
      token: null,
    });
    expect(anonymous.status).toBe(401);
    const readOnly = await world.tenant(["profiles:read"]);
    const forbidden = await world.call("POST", SEND, SEND, {
      body: otpBody(campaign.campaign_id),
      token: readOnly.token,
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.code).toBe("missing_scope");
    expect(String(forbidden.json.detail)).toContain("messages:send");
    const counted = await send(world, otpBody(campaign.campaign_id));
    expect(counted.headers["ratelimit-remaining"]).toBe("99");
  });

  it("429: the 101st send in the window gets Retry-After and code rate_limited", async () => {
    const world = await specWorld();
    world.deps.config = { ...defaultConfig, sendRateLimit: 3 };
    const campaign = await world.campaign();
    for (let i = 0; i < 3; i++) {
      // 400s count too (docs/decisions.md "Rate limit").
      expect((await send(world, { nonsense: i })).status).toBe(400);
    }
    const limited = await send(world, otpBody(campaign.campaign_id));
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(limited.headers["ratelimit-remaining"]).toBe("0");
    expect(limited.headers["ratelimit-reset"]).toBe(limited.headers["retry-after"]);
    world.clock.advance(60_000);
    expect((await send(world, otpBody(campaign.campaign_id))).status).toBe(200);
  });

  it("Idempotency-Key replays the same answer and sends nothing the second time", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const headers = { "idempotency-key": "3f1c6f0e-otp" };
    const first = await send(world, otpBody(campaign.campaign_id), headers);
    const replay = await send(world, otpBody(campaign.campaign_id), headers);
    expect(replay.status).toBe(200);
    expect(replay.body).toBe(first.body);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(world.provider.dispatched.length).toBe(1);
    const reused = await send(
      world,
      otpBody(campaign.campaign_id, { client_reference: "x" }),
      headers,
    );
    expect(reused.status).toBe(422);
    expect(reused.json.code).toBe("idempotency_key_reused");
  });

  it("Idempotency-Key while the first request still runs is 409", async () => {
    const { held, first, again } = await sendHeldInHandOff("busy");
    const second = await again();
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("idempotency_in_progress");
    held.release();
    expect((await first).status).toBe(200);
  });

  it("Idempotency-Key after a crash: a retry past the lock answers the stored message and sends nothing again", async () => {
    // The first request's process dies during the hand-off: the message is stored, no answer.
    const { world, held, again } = await sendHeldInHandOff("crash-1");
    world.clock.advance(world.deps.config.idempotencyLockMs);
    const retry = await again();
    expect(retry.status).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    const id = String(retry.json.message_id);
    expect(retry.json).toEqual({
      message_id: id,
      status: "sent",
      client_reference: null,
      error: null,
    });
    expect(await world.storage.raw.message(id)).toMatchObject({ id, status: "sent" });
    expect(held.dispatches()).toBe(1);
  });

  it("a database locked too long before the send is stored is 503 storage_busy, with the RateLimit headers", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    world.storage.failNext("messages.insert", new StorageBusyError(5000));
    const busy = await send(world, otpBody(campaign.campaign_id));
    expect(busy.status).toBe(503);
    expect(busy.json.code).toBe("storage_busy");
    expect(busy.headers["retry-after"]).toBe("1");
    expect(busy.headers["ratelimit-remaining"]).toBe(String(defaultConfig.sendRateLimit - 1));
    expect(world.provider.dispatched).toHaveLength(0);
  });
});
