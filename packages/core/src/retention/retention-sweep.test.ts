import { describe, expect, it } from "vitest";
import {
  CONSOLE_IDLE_MS,
  createSignInToken,
  isSignInTokenValid,
  resumeSession,
  signIn,
} from "../auth/console-sessions.js";
import { getMessage } from "../messages/get-message.js";
import { deleteProfile } from "../profiles/delete-profile.js";
import { isoAt } from "../support/clock.js";
import { anIdempotencyRecord, completeOne } from "../testing/contract/fixtures.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { createRetentionSweeper, RATE_LIMIT_HIT_HORIZON_MS } from "./retention-sweep.js";

const DAY = 24 * 60 * 60 * 1000;
const RETENTION = 2 * DAY;

/** A world whose messages are kept two days, with a subscription to every topic. */
async function retentionWorld() {
  const world = await sendWorld();
  const deps = { ...world.deps, config: { ...world.deps.config, retentionMs: RETENTION } };
  const campaign = await world.campaign();
  const webhook = await world.subscribeAll();
  let mono = 0;
  const monotonic = () => mono;
  /** Moves the wall clock and the monotonic clock together, as real time passing does. */
  const pass = (ms: number) => {
    world.clock.advance(ms);
    mono += ms;
  };
  /** Sends one message and lets its lifecycle run to `seen`. */
  const sendOne = async (phone: string) => {
    const sent = (await world.send(sendBody(campaign.campaign_id, phone)))._unsafeUnwrap();
    await world.scheduler.runAll();
    return sent.message_id;
  };
  /** Ends every pending delivery of the world, as a delivery engine would (delivered). */
  const deliverAll = async () => {
    const now = isoAt(world.clock.now());
    const claimed = await world.storage.deliveries.claimDue(now, 1000, "engine", 60_000);
    for (const delivery of claimed) {
      await completeOne(world.storage.deliveries, delivery.id, "engine", {
        attempt: {
          deliveryId: delivery.id,
          organizationId: delivery.organizationId,
          attempt: 0,
          startedAt: now,
          durationMs: 5,
          statusCode: 200,
          error: null,
          responseBody: "ok",
        },
        next: { status: "delivered" },
      });
    }
    return claimed;
  };
  return { ...world, deps, webhook, monotonic, pass, sendOne, deliverAll, campaign };
}

describe("the retention sweep", () => {
  it("deletes a message older than the retention with its events, deliveries and attempts, and keeps what is younger or still owed", async () => {
    const w = await retentionWorld();
    const old = await w.sendOne("+306941111111");
    const oldDeliveries = await w.deliverAll();
    expect(oldDeliveries.length).toBeGreaterThan(0);
    w.pass(RETENTION - 60_000);
    const young = await w.sendOne("+306943333333");
    await w.deliverAll();
    w.pass(120_000);

    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    const round = await sweeper.round();

    expect(round.messages).toBe(1);
    expect(await w.storage.raw.message(old)).toBeNull();
    expect(await w.storage.raw.events(old)).toEqual([]);
    for (const delivery of oldDeliveries) {
      expect(await w.storage.raw.delivery(delivery.id)).toBeNull();
      expect(await w.storage.raw.attempts(delivery.id)).toEqual([]);
    }
    const read = await getMessage(w.deps, w.actor, old);
    expect(read.isErr() && read.error.type).toBe("not_found");
    expect(await w.storage.raw.message(young)).not.toBeNull();
    expect((await w.storage.raw.events(young)).length).toBe(3);
    // What retention never deletes.
    expect(await w.storage.raw.profile(w.org.profile.id)).not.toBeNull();
    expect(await w.storage.raw.webhook(w.webhook.id)).not.toBeNull();
    expect(await w.storage.raw.apiKey(w.org.apiKey.id)).not.toBeNull();
    expect(await w.storage.raw.campaign(w.campaign.campaign_id)).not.toBeNull();
  });

  it("keeps a message while a delivery of it is pending, past the retention, and deletes it when the delivery ends", async () => {
    const w = await retentionWorld();
    const owed = await w.sendOne("+306941111111");
    w.pass(RETENTION + 60_000);
    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    expect((await sweeper.round()).messages).toBe(0);
    expect(await w.storage.raw.message(owed)).not.toBeNull();
    expect((await w.storage.raw.events(owed)).length).toBe(3);
    await w.deliverAll();
    expect((await sweeper.round()).messages).toBe(1);
    expect(await w.storage.raw.message(owed)).toBeNull();
  });

  it("erases soft-deleted profiles once eraseDeletedAfterMs has passed since their deletion, and never when it is off", async () => {
    const w = await retentionWorld();
    const gone = await w.profile({ phone_number: "+306942222222", first_name: "Hypatia" });
    const kept = await w.profile({ phone_number: "+306943333333", first_name: "Theano" });
    const messageId = await w.sendOne("+306942222222");
    await w.deliverAll();
    (await deleteProfile(w.deps, w.actor, gone.public_id))._unsafeUnwrap();
    w.pass(3 * DAY);
    const off = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    expect((await off.round()).erasedProfiles).toBe(0);
    expect((await w.storage.raw.profile(gone.public_id))?.phoneNumber).toBe("+306942222222");

    const deps = { ...w.deps, config: { ...w.deps.config, eraseDeletedAfterMs: 4 * DAY } };
    const sweeper = createRetentionSweeper(deps, { monotonic: w.monotonic });
    expect((await sweeper.round()).erasedProfiles).toBe(0);
    w.pass(DAY + 1);
    expect((await sweeper.round()).erasedProfiles).toBe(1);
    expect(await w.storage.raw.profile(gone.public_id)).toMatchObject({
      phoneNumber: "",
      firstName: null,
      status: "inactive",
    });
    // Its message was swept by age already, or is erased with it; the active profile is untouched.
    const message = await w.storage.raw.message(messageId);
    if (message !== null) expect(message.phoneNumber).toBe("");
    expect((await w.storage.raw.profile(kept.public_id))?.firstName).toBe("Theano");
    expect((await sweeper.round()).erasedProfiles).toBe(0);
  });

  it("deletes an idempotency record once its TTL has passed, and a later request with the key starts afresh", async () => {
    const w = await retentionWorld();
    const now = w.clock.now();
    const record = anIdempotencyRecord({
      apiKeyId: w.org.apiKey.id,
      createdAt: isoAt(now),
      lockedUntil: isoAt(now + 60_000),
      expiresAt: isoAt(now + w.deps.config.idempotencyTtlMs),
    });
    await w.storage.idempotency.begin(record, isoAt(now));
    await w.storage.idempotency.complete(
      record.apiKeyId,
      record.endpoint,
      record.key,
      isoAt(now + 60_000),
      {
        status: 200,
        body: "{}",
        headers: {},
      },
    );
    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    w.pass(w.deps.config.idempotencyTtlMs - 1);
    expect((await sweeper.round()).idempotencyRecords).toBe(0);
    expect(
      await w.storage.raw.idempotency(record.apiKeyId, record.endpoint, record.key),
    ).not.toBeNull();
    w.pass(1);
    expect((await sweeper.round()).idempotencyRecords).toBe(1);
    expect(
      await w.storage.raw.idempotency(record.apiKeyId, record.endpoint, record.key),
    ).toBeNull();
  });

  it("deletes rate-limit hits of a key that stopped sending once no window can count them", async () => {
    const w = await retentionWorld();
    for (let i = 0; i < 3; i++)
      await w.storage.rateLimits.hit("key_quiet", w.clock.now(), 60_000, 100);
    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    w.pass(RATE_LIMIT_HIT_HORIZON_MS - 1);
    expect((await sweeper.round()).rateLimitHits).toBe(0);
    w.pass(1);
    expect((await sweeper.round()).rateLimitHits).toBe(3);
  });

  it("deletes console sign-in links and sessions once expired, and keeps a session in use", async () => {
    const w = await retentionWorld();
    const link = (await createSignInToken(w.deps, w.org.organization.id, 15))._unsafeUnwrap();
    const idle = await signIn(
      w.deps,
      (await createSignInToken(w.deps, w.org.organization.id))._unsafeUnwrap().token,
    );
    const busy = await signIn(
      w.deps,
      (await createSignInToken(w.deps, w.org.organization.id))._unsafeUnwrap().token,
    );
    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    w.pass(15 * 60_000 - 1);
    expect((await sweeper.round()).consoleSessions).toBe(0);
    w.pass(1);
    expect((await sweeper.round()).consoleSessions).toBe(1);
    expect(await isSignInTokenValid(w.deps, link.token)).toBe(false);
    // The busy session is used an hour before the idle one ends; its own end moves on.
    w.pass(CONSOLE_IDLE_MS - 60 * 60_000);
    expect(await resumeSession(w.deps, busy?.sessionId ?? "")).not.toBeNull();
    expect((await sweeper.round()).consoleSessions).toBe(0);
    w.pass(60 * 60_000);
    expect((await sweeper.round()).consoleSessions).toBe(1);
    expect(await resumeSession(w.deps, idle?.sessionId ?? "")).toBeNull();
    expect(await resumeSession(w.deps, busy?.sessionId ?? "")).not.toBeNull();
  });

  it("a wall clock that jumps ahead deletes nothing early; one that jumps back deletes less", async () => {
    const w = await retentionWorld();
    const message = await w.sendOne("+306941111111");
    await w.deliverAll();
    const sweeper = createRetentionSweeper(w.deps, { monotonic: w.monotonic });
    await sweeper.round();
    // The wall clock leaps 30 days while 10 seconds really pass.
    w.clock.advance(30 * DAY);
    w.pass(10_000);
    const leap = await sweeper.round();
    expect(leap.messages).toBe(0);
    expect(leap.clockJumpMs).toBe(30 * DAY);
    expect(await w.storage.raw.message(message)).not.toBeNull();
    // Once the retention has really passed, the message goes.
    w.pass(RETENTION);
    expect((await sweeper.round()).messages).toBe(1);

    const later = await w.sendOne("+306942222222");
    await w.deliverAll();
    w.clock.advance(-5 * DAY);
    w.pass(RETENTION + 1000);
    const back = await sweeper.round();
    expect(back.clockJumpMs).toBe(-5 * DAY);
    expect(back.messages).toBe(0);
    expect(await w.storage.raw.message(later)).not.toBeNull();
  });

  it("deletes by whole milliseconds even when the monotonic clock has fractions", async () => {
    const w = await retentionWorld();
    let mono = 0.25;
    const sweeper = createRetentionSweeper(w.deps, { monotonic: () => mono });
    await sweeper.round();
    await w.storage.rateLimits.hit("key_quiet", w.clock.now(), 60_000, 100);
    w.clock.advance(RATE_LIMIT_HIT_HORIZON_MS + 1000);
    mono += RATE_LIMIT_HIT_HORIZON_MS + 999.6;
    const calls: number[] = [];
    const spy = w.storage.retention.deleteRateLimitHitsBefore;
    w.storage.retention.deleteRateLimitHitsBefore = (before, limit) => {
      calls.push(before);
      return spy(before, limit);
    };
    expect((await sweeper.round()).rateLimitHits).toBe(1);
    expect(calls.every(Number.isInteger)).toBe(true);
  });

  it("works in bounded batches with a pause between them, and goes on in the next round where it stopped", async () => {
    const w = await retentionWorld();
    const sent = [];
    for (let i = 0; i < 10; i++)
      sent.push(await w.sendOne(`+3069410000${String(i).padStart(2, "0")}`));
    await w.deliverAll();
    w.pass(RETENTION + 1);
    let pauses = 0;
    const sweeper = createRetentionSweeper(w.deps, {
      monotonic: w.monotonic,
      batchSize: 2,
      maxBatches: 2,
      between: async () => {
        pauses += 1;
      },
    });
    const rounds = [];
    for (let i = 0; i < 4; i++) rounds.push((await sweeper.round()).messages);
    expect(rounds).toEqual([4, 4, 2, 0]);
    expect(pauses).toBeGreaterThan(4);
    for (const id of sent) expect(await w.storage.raw.message(id)).toBeNull();
  });
});
