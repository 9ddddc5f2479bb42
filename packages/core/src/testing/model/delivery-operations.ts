import fc from "fast-check";
import type { AttemptOutcome, CompletedAttempt, DeliveryDestination } from "../../ports.js";
import { aDelivery, at, aUuid } from "../contract/fixtures.js";
import { always, has, Operation, readsOf } from "./operation.js";
import { ORGS, OWNERS, pick, URLS } from "./values.js";

const WEBHOOKS = ["whk_0000000000000000000000000a", "whk_0000000000000000000000000b"] as const;

/** Two subscriptions and two message URLs, so claims can exclude some destinations. */
const DESTINATIONS: DeliveryDestination[] = [
  { kind: "subscription", webhookId: WEBHOOKS[0] },
  { kind: "subscription", webhookId: WEBHOOKS[1] },
  { kind: "message", url: URLS[0], apiKeyId: "key_0000000000000000000000000a" },
  { kind: "message", url: `${URLS[1]}?path=2`, apiKeyId: "key_0000000000000000000000000b" },
];

const insert = fc
  .record({
    org: fc.nat(1),
    to: fc.nat(3),
    due: fc.nat(8),
    message: fc.option(fc.nat(), { nil: undefined }),
  })
  .map(
    ({ org, to, due, message }) =>
      new Operation(`deliveries.insert(org ${org}, to ${to}, due ${due})`, always, (model) => {
        // Linked to a stored message when there is one, so listForMessage has rows to find.
        const of =
          message === undefined || model.messages.length === 0
            ? undefined
            : pick(model.messages, message);
        const delivery = aDelivery({
          organizationId: of?.organizationId ?? pick(ORGS, org),
          eventId: aUuid(),
          messageId: of?.id ?? null,
          destination: pick(DESTINATIONS, to),
          nextAttemptAt: at(due),
          createdAt: at(due),
          updatedAt: at(due),
        });
        model.deliveries.push(delivery);
        return (side) => side.repos.deliveries.insert(delivery);
      }),
  );

/** Every destination key a delivery of the model can have: each organization's, to each place. */
const KEYS = ORGS.flatMap((org) => aDeliveryKeys(org));

function aDeliveryKeys(organizationId: string): string[] {
  return DESTINATIONS.map(
    (destination) => aDelivery({ organizationId, eventId: aUuid(), destination }).destinationKey,
  );
}

const someKeys = fc.subarray(KEYS.map((_, i) => i));

const claimDue = fc
  .record({
    now: fc.nat(16),
    limit: fc.integer({ min: 1, max: 4 }),
    owner: fc.nat(1),
    lease: fc.constantFrom(3_000, 8_000),
    exclude: someKeys,
    only: fc.option(someKeys, { nil: undefined }),
    perDestination: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  })
  .map(({ now, limit, owner, lease, exclude, only, perDestination }) => {
    const keys = (indexes: number[]) => indexes.map((i) => pick(KEYS, i));
    const options = {
      excludeDestinations: keys(exclude),
      ...(only === undefined ? {} : { onlyDestinations: keys(only) }),
      ...(perDestination === undefined ? {} : { perDestination }),
    };
    return new Operation(
      `deliveries.claimDue(${now}, ${limit}, ${pick(OWNERS, owner)}, ${lease}, not [${exclude}], only ${only === undefined ? "any" : `[${only}]`}, ${perDestination ?? "∞"} each)`,
      always,
      () => (side) =>
        side.repos.deliveries.claimDue(at(now), limit, pick(OWNERS, owner), lease, options),
    );
  });

const dueNowForDestination = fc
  .record({ key: fc.nat(KEYS.length - 1), t: fc.nat(16) })
  .map(
    ({ key, t }) =>
      new Operation(
        `deliveries.dueNowForDestination(key ${key}, ${t})`,
        always,
        () => (side) => side.repos.deliveries.dueNowForDestination(pick(KEYS, key), at(t)),
      ),
  );

const OUTCOMES = ["delivered", "failed", "pending"] as const;

/** One attempt of a `completeAttempts` batch; a batch may name a delivery twice. */
const attemptPick = fc.record({
  n: fc.nat(),
  outcome: fc.nat(2),
  t: fc.nat(16),
  status: fc.constantFrom(200, 500, null),
});

const completeAttempts = fc
  .record({ owner: fc.nat(1), picks: fc.array(attemptPick, { minLength: 1, maxLength: 3 }) })
  .map(
    ({ owner, picks }) =>
      new Operation(
        `deliveries.completeAttempts(${pick(OWNERS, owner)}, [${picks
          .map(({ n, outcome }) => `#${n} ${pick(OUTCOMES, outcome)}`)
          .join(", ")}])`,
        has("deliveries"),
        async (model, storages) => {
          const batch: CompletedAttempt[] = [];
          for (const { n, outcome, t, status } of picks) {
            const { id, organizationId } = pick(model.deliveries, n);
            const stored = await storages.reference.raw.delivery(id);
            const kind = pick(OUTCOMES, outcome);
            const next: AttemptOutcome["next"] =
              kind === "pending" ? { status: kind, nextAttemptAt: at(t + 30) } : { status: kind };
            const attempt = {
              deliveryId: id,
              organizationId,
              attempt: stored?.attempts ?? 0,
              startedAt: at(t),
              durationMs: 40 + n,
              statusCode: status,
              error: status === null ? "timeout" : null,
              responseBody: status === null ? null : "ok",
            };
            batch.push({ id, attempt, next });
          }
          return (side) => side.repos.deliveries.completeAttempts(pick(OWNERS, owner), batch);
        },
      ),
  );

const redeliver = fc.record({ n: fc.nat(), org: fc.nat(1), t: fc.nat(16) }).map(
  ({ n, org, t }) =>
    new Operation(`deliveries.redeliver(#${n}, org ${org})`, has("deliveries"), (model) => {
      const { id } = pick(model.deliveries, n);
      return (side) => side.repos.deliveries.redeliver(pick(ORGS, org), id, at(t));
    }),
);

const cancelForSubscription = fc
  .record({ org: fc.nat(1), webhook: fc.nat(1), t: fc.nat(16) })
  .map(
    ({ org, webhook, t }) =>
      new Operation(
        `deliveries.cancelForSubscription(org ${org}, webhook ${webhook})`,
        always,
        () => (side) =>
          side.repos.deliveries.cancelForSubscription(
            pick(ORGS, org),
            pick(WEBHOOKS, webhook),
            at(t),
          ),
      ),
  );

/**
 * A subscription's deliveries move to another of its organization's keys: a destination key
 * starts with the organization's id, so no key is ever shared by two organizations (claims
 * take turns by organization, and a shared key would make the reference's and a storage's
 * turns differ where nothing real can).
 */
const rekeyForSubscription = fc
  .record({ org: fc.nat(1), webhook: fc.nat(1), key: fc.nat(DESTINATIONS.length - 1) })
  .map(
    ({ org, webhook, key }) =>
      new Operation(
        `deliveries.rekeyForSubscription(org ${org}, webhook ${webhook}, key ${key})`,
        always,
        () => (side) =>
          side.repos.deliveries.rekeyForSubscription(
            pick(ORGS, org),
            pick(WEBHOOKS, webhook),
            pick(KEYS, org * DESTINATIONS.length + key),
          ),
      ),
  );

const nextDueAt = fc.constant(
  new Operation(
    "deliveries.nextDueAt()",
    always,
    () => (side) => side.repos.deliveries.nextDueAt(),
  ),
);

const read = readsOf("deliveries", async (repos, organizationId, id) => [
  await repos.deliveries.get(organizationId, id),
  await repos.deliveries.listAttempts(organizationId, id),
]);

/** Random operations on the delivery outbox: inserts, leases, attempts, redeliveries. */
export const deliveryOperations = [
  insert,
  insert,
  claimDue,
  claimDue,
  completeAttempts,
  redeliver,
  cancelForSubscription,
  rekeyForSubscription,
  dueNowForDestination,
  nextDueAt,
  read,
];
