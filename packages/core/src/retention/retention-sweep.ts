import type { Deps } from "../deps.js";
import type { MessageCursor } from "../ports.js";
import { erasePersonWithin } from "../privacy/erase-person.js";
import { isoAt } from "../support/clock.js";
import { retentionClock } from "./retention-clock.js";

/**
 * How long rate-limit hits are kept at least, in ms: longer than any limiter's window (the
 * send limit's is configured; others, such as the webhook test limit, are a minute), so a
 * deleted hit could never have counted again.
 */
export const RATE_LIMIT_HIT_HORIZON_MS = 60 * 60 * 1000;

export interface RetentionSweepOptions {
  /** Messages looked at per batch (200); other records are deleted five times as many. */
  batchSize?: number | undefined;
  /** Batches of each kind per round at most (50); the next round goes on where this stopped. */
  maxBatches?: number | undefined;
  /** Awaited between two batches, so other work runs in between (the server yields a turn). */
  between?: (() => Promise<void>) | undefined;
  /** Monotonic milliseconds (`performance.now`), to see through jumps of the wall clock. */
  monotonic?: (() => number) | undefined;
}

/** What one round deleted. */
export interface RetentionRound {
  /** Messages deleted, each with its events, deliveries and attempts. */
  messages: number;
  /** Soft-deleted profiles erased (`config.eraseDeletedAfterMs`; 0 when it is off). */
  erasedProfiles: number;
  idempotencyRecords: number;
  rateLimitHits: number;
  /** Console sign-in links and sessions past their expiry (unusable already). */
  consoleSessions: number;
  /** Inbound messages older than messages are kept (suppressions are never swept). */
  inboundMessages: number;
  /**
   * Deliveries (with their attempts) of events about no message, such as
   * `profile.consent_changed`, older than messages are kept and no longer pending.
   */
  eventDeliveries: number;
  /** Pages of the database file given back to the file system (SQLite). */
  pagesReclaimed: number;
  /** How far the wall clock jumped since the last round (see `retentionClock`). */
  clockJumpMs: number;
}

/** Runs retention one round at a time. */
export interface RetentionSweeper {
  /** One round: every kind of record in bounded batches; resolves to what it deleted. */
  round(): Promise<RetentionRound>;
}

/**
 * The retention sweep `serve` and `worker` run: deletes messages older than
 * `config.retentionMs` (with their events, deliveries and attempts; never one with a pending
 * delivery), idempotency records past `config.idempotencyTtlMs`, rate-limit hits no window
 * counts any more, console sign-in links and sessions past their expiry, inbound messages and
 * the deliveries of events about no message on the terms of messages, then lets the
 * storage give the space back. Each batch is its own short transaction; the walk over messages
 * goes on across rounds from where the last one stopped, so the messages it must keep are
 * looked at once per pass, not once per batch.
 */
export function createRetentionSweeper(
  deps: Pick<Deps, "storage" | "clock" | "config" | "ids" | "secretBox">,
  options: RetentionSweepOptions = {},
): RetentionSweeper {
  const batchSize = options.batchSize ?? 200;
  const maxBatches = options.maxBatches ?? 50;
  const between = options.between ?? (async () => undefined);
  const clock = retentionClock(deps.clock, options.monotonic);
  const retention = deps.storage.retention;
  let cursor: MessageCursor | null = null;

  /** Repeats `batch` while it deletes a full batch, at most `maxBatches` times. */
  const drain = async (batch: () => Promise<number>, full: number): Promise<number> => {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      if (i > 0) await between();
      const deleted = await batch();
      total += deleted;
      if (deleted < full) break;
    }
    return total;
  };

  return {
    async round() {
      const time = clock.read();
      const now = isoAt(time.now);
      const createdBefore = isoAt(time.now - deps.config.retentionMs);
      let messages = 0;
      for (let i = 0; i < maxBatches; i++) {
        if (i > 0) await between();
        const batch = await retention.deleteOldMessages({
          createdBefore,
          now,
          after: cursor,
          limit: batchSize,
        });
        messages += batch.deleted;
        cursor = batch.next;
        // The end of a pass: the next round starts again from the oldest message.
        if (cursor === null) break;
      }
      let erasedProfiles = 0;
      const eraseAfter = deps.config.eraseDeletedAfterMs;
      if (eraseAfter !== null && eraseAfter !== undefined) {
        const deletedBefore = isoAt(time.now - eraseAfter);
        erasedProfiles = await drain(async () => {
          const due = await deps.storage.privacy.deletedNotErased(deletedBefore, batchSize);
          for (const profile of due) {
            await deps.storage.transaction((tx) =>
              erasePersonWithin(tx, deps, profile.organizationId, { profileId: profile.id }, now),
            );
          }
          return due.length;
        }, batchSize);
      }
      await between();
      const idempotencyRecords = await drain(
        () => retention.deleteExpiredIdempotencyRecords(now, batchSize * 5),
        batchSize * 5,
      );
      await between();
      const horizon = Math.max(deps.config.sendRateWindowMs, RATE_LIMIT_HIT_HORIZON_MS);
      const rateLimitHits = await drain(
        () => retention.deleteRateLimitHitsBefore(time.now - horizon, batchSize * 5),
        batchSize * 5,
      );
      await between();
      const consoleSessions = await drain(
        () => retention.deleteExpiredConsoleSessions(now, batchSize * 5),
        batchSize * 5,
      );
      await between();
      const inboundMessages = await drain(
        () => deps.storage.inbound.deleteReceivedBefore(createdBefore, batchSize * 5),
        batchSize * 5,
      );
      await between();
      const eventDeliveries = await drain(
        () => retention.deleteOldEventDeliveries(createdBefore, batchSize * 5),
        batchSize * 5,
      );
      await between();
      const pagesReclaimed = await retention.reclaimSpace();
      return {
        messages,
        erasedProfiles,
        idempotencyRecords,
        rateLimitHits,
        consoleSessions,
        inboundMessages,
        eventDeliveries,
        pagesReclaimed,
        clockJumpMs: time.jumpMs,
      };
    },
  };
}
