import type { MessageRecord, RetentionRepository } from "../../ports.js";
import { oldMessagesDeleted } from "../../retention/old-messages-batch.js";
import type { MemoryScope } from "./scope.js";
import { ms, oldestFirst } from "./state.js";

/** Whether `message` comes after the cursor in (createdAt, id) order. */
const after = (message: MessageRecord, cursor: { createdAt: string; id: string } | null) =>
  cursor === null ||
  message.createdAt > cursor.createdAt ||
  (message.createdAt === cursor.createdAt && message.id > cursor.id);

/** Retention's deletes in memory; each call is one atomic write. */
export function memoryRetention(scope: MemoryScope): RetentionRepository {
  return {
    deleteOldMessages: (query) =>
      scope.write("retention.deleteOldMessages", (s) => {
        const looked = oldestFirst(
          [...s.messages.values()].filter(
            (m) => ms(m.createdAt) < ms(query.createdBefore) && after(m, query.after),
          ),
          (m) => m.createdAt,
          (m) => m.id,
        ).slice(0, query.limit);
        const pending = new Set<string>();
        for (const d of s.deliveries.values()) {
          if (d.status === "pending" && d.messageId !== null) pending.add(d.messageId);
        }
        const open = (m: MessageRecord) =>
          m.status === "scheduled" ||
          m.status === "releasing" ||
          (m.status === "sent" && ms(m.expiresAt) > ms(query.now));
        const doomed = new Set(
          looked.filter((m) => !pending.has(m.id) && !open(m)).map((m) => m.id),
        );
        const deliveries = new Set<string>();
        for (const d of s.deliveries.values()) {
          if (d.messageId !== null && doomed.has(d.messageId)) deliveries.add(d.id);
        }
        s.attempts = s.attempts.filter((a) => !deliveries.has(a.deliveryId));
        for (const id of deliveries) s.deliveries.delete(id);
        s.events = s.events.filter((e) => !doomed.has(e.messageId));
        for (const [code, link] of s.links) if (doomed.has(link.messageId)) s.links.delete(code);
        for (const [key, price] of s.prices) if (doomed.has(price.messageId)) s.prices.delete(key);
        for (const id of doomed) s.messages.delete(id);
        return oldMessagesDeleted(looked, query.limit, doomed.size, (m) => ({
          createdAt: m.createdAt,
          id: m.id,
        }));
      }),
    deleteOldEventDeliveries: (createdBefore, limit) =>
      scope.write("retention.deleteOldEventDeliveries", (s) => {
        const old = [...s.deliveries.values()].filter(
          (d) =>
            d.messageId === null && d.status !== "pending" && ms(d.createdAt) < ms(createdBefore),
        );
        const doomed = new Set(
          oldestFirst(
            old,
            (d) => d.createdAt,
            (d) => d.id,
          )
            .slice(0, limit)
            .map((d) => d.id),
        );
        s.attempts = s.attempts.filter((a) => !doomed.has(a.deliveryId));
        for (const id of doomed) s.deliveries.delete(id);
        return doomed.size;
      }),
    deleteExpiredIdempotencyRecords: (now, limit) =>
      scope.write("retention.deleteExpiredIdempotencyRecords", (s) => {
        let deleted = 0;
        for (const [key, record] of s.idempotency) {
          if (deleted >= limit) break;
          const expired = ms(record.expiresAt) <= ms(now);
          const held =
            record.state === "in_progress" &&
            record.lockedUntil !== null &&
            ms(record.lockedUntil) > ms(now);
          if (expired && !held) {
            s.idempotency.delete(key);
            deleted += 1;
          }
        }
        return deleted;
      }),
    deleteRateLimitHitsBefore: (before, limit) =>
      scope.write("retention.deleteRateLimitHitsBefore", (s) => {
        let deleted = 0;
        for (const [key, hits] of s.rateLimitHits) {
          if (deleted >= limit) break;
          // Hits are kept ascending, so the old ones lead.
          const old = hits.filter((t) => t <= before).length;
          const removed = Math.min(old, limit - deleted);
          if (removed === 0) continue;
          const left = hits.slice(removed);
          if (left.length === 0) s.rateLimitHits.delete(key);
          else s.rateLimitHits.set(key, left);
          deleted += removed;
        }
        return deleted;
      }),
    deleteExpiredConsoleSessions: (now, limit) =>
      scope.write("retention.deleteExpiredConsoleSessions", (s) => {
        let deleted = 0;
        for (const map of [s.consoleSignInTokens, s.consoleSessions]) {
          for (const [hash, record] of map) {
            if (deleted >= limit) return deleted;
            if (ms(record.expiresAt) > ms(now)) continue;
            map.delete(hash);
            deleted += 1;
          }
        }
        return deleted;
      }),
    reclaimSpace: () => scope.read("retention.reclaimSpace", () => 0),
  };
}
