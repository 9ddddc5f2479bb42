import { ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { MessageStatus } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";

const HOUR_MS = 60 * 60 * 1000;

/** How many messages sent in one UTC hour are in each status now. */
export interface HourlyMessageCounts {
  /** The hour as `YYYY-MM-DDTHH` (UTC). */
  hour: string;
  counts: Partial<Record<MessageStatus, number>>;
}

/**
 * The organization's messages of the last `hours` hours (24) by the UTC hour they were sent
 * and their status now, oldest hour first, every hour present (empty ones too).
 */
export function countRecentMessages(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  hours = 24,
): ResultAsync<HourlyMessageCounts[], DomainError> {
  return useCase("countRecentMessages", async () => {
    const now = deps.clock.now();
    const firstHour = Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
    const rows = await deps.storage.messages.countByHour(actor.organizationId, isoAt(firstHour));
    const buckets: HourlyMessageCounts[] = Array.from({ length: hours }, (_, i) => ({
      hour: isoAt(firstHour + i * HOUR_MS).slice(0, 13),
      counts: {},
    }));
    const byHour = new Map(buckets.map((bucket) => [bucket.hour, bucket]));
    for (const row of rows) {
      const bucket = byHour.get(row.hour);
      if (bucket) bucket.counts[row.status] = (bucket.counts[row.status] ?? 0) + row.count;
    }
    return ok(buckets);
  });
}
