import type { IdempotencyRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { clone, idempotencyKey, ms } from "./state.js";

/** Idempotency records in memory. */
export function memoryIdempotency(scope: MemoryScope): IdempotencyRepository {
  return {
    begin: (record, now) =>
      scope.write("idempotency.begin", (s) => {
        const key = idempotencyKey(record.apiKeyId, record.endpoint, record.key);
        const existing = s.idempotency.get(key);
        if (existing === undefined || ms(existing.expiresAt) <= ms(now)) {
          s.idempotency.set(key, clone(record));
          return { outcome: "started" as const };
        }
        const abandoned =
          existing.state === "in_progress" &&
          existing.requestHash === record.requestHash &&
          existing.lockedUntil !== null &&
          ms(existing.lockedUntil) <= ms(now);
        if (!abandoned) return { outcome: "exists" as const, record: clone(existing) };
        const resumed = { ...existing, lockedUntil: record.lockedUntil };
        s.idempotency.set(key, resumed);
        return { outcome: "resumed" as const, record: clone(resumed) };
      }),
    markRecoveryPoint: (apiKeyId, endpoint, key, lockedUntil, recoveryPoint) =>
      scope.write("idempotency.markRecoveryPoint", (s) => {
        const id = idempotencyKey(apiKeyId, endpoint, key);
        const existing = s.idempotency.get(id);
        if (existing === undefined || existing.lockedUntil !== lockedUntil) return false;
        s.idempotency.set(id, { ...existing, recoveryPoint });
        return true;
      }),
    complete: (apiKeyId, endpoint, key, lockedUntil, response) =>
      scope.write("idempotency.complete", (s) => {
        const id = idempotencyKey(apiKeyId, endpoint, key);
        const existing = s.idempotency.get(id);
        if (existing === undefined || existing.lockedUntil !== lockedUntil) return;
        s.idempotency.set(id, {
          ...existing,
          state: "completed",
          response: clone(response),
          lockedUntil: null,
        });
      }),
    release: (apiKeyId, endpoint, key, lockedUntil) =>
      scope.write("idempotency.release", (s) => {
        const id = idempotencyKey(apiKeyId, endpoint, key);
        if (s.idempotency.get(id)?.lockedUntil === lockedUntil) s.idempotency.delete(id);
      }),
  };
}
