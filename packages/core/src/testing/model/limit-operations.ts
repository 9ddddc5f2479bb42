import fc from "fast-check";
import { anIdempotencyRecord, at } from "../contract/fixtures.js";
import { always, Operation } from "./operation.js";
import { pick } from "./values.js";

/** The idempotency key space the model draws from; the end-of-run check reads all of it. */
export const IDEMPOTENCY_KEYS = {
  apiKeyIds: ["key_0000000000000000000000000a", "key_0000000000000000000000000b"],
  endpoints: ["POST /v1/messages/send", "POST /v1/profiles"],
  keys: ["idem-1", "idem-2"],
} as const;

const hit = fc
  .record({
    key: fc.nat(1),
    now: fc.nat(150_000),
    window: fc.constantFrom(1_000, 60_000),
    limit: fc.integer({ min: 1, max: 3 }),
  })
  .map(
    ({ key, now, window, limit }) =>
      new Operation(
        `rateLimits.hit(k${key}, ${now}, ${window}, ${limit})`,
        always,
        () => (side) => side.repos.rateLimits.hit(`key_${key}`, now, window, limit),
      ),
  );

const slot = fc.record({ apiKey: fc.nat(1), endpoint: fc.nat(1), key: fc.nat(1) });
const slotOf = (s: { apiKey: number; endpoint: number; key: number }) => ({
  apiKeyId: pick(IDEMPOTENCY_KEYS.apiKeyIds, s.apiKey),
  endpoint: pick(IDEMPOTENCY_KEYS.endpoints, s.endpoint),
  key: pick(IDEMPOTENCY_KEYS.keys, s.key),
});

/**
 * A holder's lock ends at one of a few times, so later operations often name a holder's token
 * and sometimes a stale one, and `begin` meets locks both live and ended.
 */
const lock = fc.constantFrom(20, 50, 80);

const begin = fc
  .record({ slot, t: fc.nat(100), ttl: fc.constantFrom(10, 60), body: fc.nat(1), lock })
  .map(({ slot: s, t, ttl, body, lock: until }) => {
    const record = anIdempotencyRecord({
      ...slotOf(s),
      requestHash: `sha256:body-${body}`,
      lockedUntil: at(until),
      createdAt: at(t),
      expiresAt: at(t + ttl),
    });
    return new Operation(
      `idempotency.begin(${record.apiKeyId.slice(-1)} ${record.endpoint} ${record.key}, at ${t})`,
      always,
      () => (side) => side.repos.idempotency.begin(record, at(t)),
    );
  });

const complete = fc
  .record({ slot, status: fc.constantFrom(200, 201, 422), lock })
  .map(({ slot: s, status, lock: until }) => {
    const { apiKeyId, endpoint, key } = slotOf(s);
    const response = {
      status,
      body: JSON.stringify({ status, key }),
      headers: { "content-type": "application/json", "x-request-id": `req-${status}` },
    };
    return new Operation(
      `idempotency.complete(${apiKeyId.slice(-1)} ${endpoint} ${key}, ${until}, ${status})`,
      always,
      () => (side) => side.repos.idempotency.complete(apiKeyId, endpoint, key, at(until), response),
    );
  });

const markRecoveryPoint = fc
  .record({ slot, lock, message: fc.nat(2) })
  .map(({ slot: s, lock: until, message }) => {
    const { apiKeyId, endpoint, key } = slotOf(s);
    return new Operation(
      `idempotency.markRecoveryPoint(${apiKeyId.slice(-1)} ${endpoint} ${key}, ${until}, m${message})`,
      always,
      () => (side) =>
        side.repos.idempotency.markRecoveryPoint(
          apiKeyId,
          endpoint,
          key,
          at(until),
          `message:m${message}`,
        ),
    );
  });

const release = fc.record({ slot, lock }).map(({ slot: s, lock: until }) => {
  const { apiKeyId, endpoint, key } = slotOf(s);
  return new Operation(
    `idempotency.release(${apiKeyId.slice(-1)} ${endpoint} ${key}, ${until})`,
    always,
    () => (side) => side.repos.idempotency.release(apiKeyId, endpoint, key, at(until)),
  );
});

/** Random rate-limit hits and idempotency records. */
export const limitOperations = [hit, hit, begin, begin, complete, markRecoveryPoint, release];
