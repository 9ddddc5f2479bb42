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
        if (existing !== undefined && ms(existing.expiresAt) > ms(now)) return existing;
        s.idempotency.set(key, clone(record));
        return "started" as const;
      }),
    complete: (apiKeyId, endpoint, key, response) =>
      scope.write("idempotency.complete", (s) => {
        const id = idempotencyKey(apiKeyId, endpoint, key);
        const existing = s.idempotency.get(id);
        if (existing === undefined) return;
        s.idempotency.set(id, { ...existing, state: "completed", response: clone(response) });
      }),
    release: (apiKeyId, endpoint, key) =>
      scope.write("idempotency.release", (s) => {
        s.idempotency.delete(idempotencyKey(apiKeyId, endpoint, key));
      }),
  };
}
