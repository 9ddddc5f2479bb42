import type { ProfileRecord, Repositories } from "@tidings/core";
import type { MemoryStorage } from "@tidings/core/testing";
import { aDelivery, aProfile, at, aUuid, memoryStorage } from "@tidings/core/testing";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sqliteRawReaders } from "./raw-readers.js";
import { sqliteStorage } from "./sqlite-storage.js";

/**
 * Model test: random sequences of storage operations run against the in-memory reference and
 * against SQLite, and every answer must be the same. The model only remembers which ids exist,
 * so operations can pick them; the reference storage decides what the answers should be.
 */

const ORGS = ["org_0000000000000000000000000a", "org_0000000000000000000000000b"] as const;
const PHONES = ["+306900000001", "+306900000002", "+306900000003"] as const;
const EMAILS = [null, "jo@example.com", "JO@Example.com", "al@example.com"] as const;
const WEBHOOKS = ["whk_0000000000000000000000000a", "whk_0000000000000000000000000b"] as const;
const OWNERS = ["engine-a", "engine-b"] as const;

interface Model {
  profiles: Array<{ id: string; organizationId: string }>;
  deliveries: Array<{ id: string; organizationId: string }>;
}

interface Real {
  memory: MemoryStorage;
  sqlite: Repositories;
}

/** One operation: its arguments are fixed first, then it runs on both storages in turn. */
class Operation implements fc.AsyncCommand<Model, Real> {
  constructor(
    private readonly label: string,
    private readonly needs: (model: Model) => boolean,
    private readonly prepare: (
      model: Model,
      real: Real,
    ) => Promise<(repos: Repositories) => Promise<unknown>>,
    private readonly remember: (model: Model, result: unknown) => void = () => {},
  ) {}
  check(model: Readonly<Model>): boolean {
    return this.needs(model);
  }
  async run(model: Model, real: Real): Promise<void> {
    const act = await this.prepare(model, real);
    const expected = await act(real.memory);
    const actual = await act(real.sqlite);
    expect(actual, this.label).toEqual(expected);
    this.remember(model, expected);
  }
  toString(): string {
    return this.label;
  }
}

const always = () => true;
const hasProfiles = (m: Model) => m.profiles.length > 0;
const hasDeliveries = (m: Model) => m.deliveries.length > 0;
const pick = <T>(items: readonly T[], n: number): T => items[n % items.length] as T;

const profileOps = [
  fc
    .record({
      org: fc.nat(1),
      phone: fc.nat(2),
      email: fc.nat(3),
      viber: fc.boolean(),
      t: fc.nat(50),
    })
    .map(({ org, phone, email, viber, t }) => {
      const profile = aProfile({
        organizationId: pick(ORGS, org),
        phoneNumber: pick(PHONES, phone),
        email: pick(EMAILS, email),
        viberMarketingConsent: viber,
        createdAt: at(t),
        updatedAt: at(t),
      });
      return new Operation(
        `profiles.insert(${profile.organizationId.slice(-1)}, ${profile.phoneNumber}, ${profile.email})`,
        always,
        async () => (repos) => repos.profiles.insert(profile),
        (model, result) => {
          if (typeof result === "object") model.profiles.push(profile);
        },
      );
    }),
  fc
    .record({ n: fc.nat(), phone: fc.nat(2), email: fc.nat(3), sms: fc.boolean(), t: fc.nat(50) })
    .map(
      ({ n, phone, email, sms, t }) =>
        new Operation(
          `profiles.update(#${n}, ${pick(PHONES, phone)}, ${pick(EMAILS, email)})`,
          hasProfiles,
          async (model, real) => {
            const stored = await real.memory.raw.profile(pick(model.profiles, n).id);
            const changed: ProfileRecord = {
              ...(stored as ProfileRecord),
              phoneNumber: pick(PHONES, phone),
              email: pick(EMAILS, email),
              smsMarketingConsent: sms,
              attributes: { n },
              updatedAt: at(t),
            };
            return (repos) => repos.profiles.update(changed);
          },
        ),
    ),
  fc.record({ n: fc.nat(), org: fc.nat(1), t: fc.nat(50) }).map(
    ({ n, org, t }) =>
      new Operation(`profiles.softDelete(#${n}, org ${org})`, hasProfiles, async (model) => {
        const { id } = pick(model.profiles, n);
        return (repos) => repos.profiles.softDelete(pick(ORGS, org), id, at(t));
      }),
  ),
  fc.record({ n: fc.nat(), org: fc.nat(1) }).map(
    ({ n, org }) =>
      new Operation(`profiles.get(#${n}, org ${org})`, hasProfiles, async (model) => {
        const { id } = pick(model.profiles, n);
        return (repos) => repos.profiles.get(pick(ORGS, org), id);
      }),
  ),
  fc
    .record({ org: fc.nat(1), phone: fc.nat(2) })
    .map(
      ({ org, phone }) =>
        new Operation(
          `profiles.findByPhone(org ${org}, ${pick(PHONES, phone)})`,
          always,
          async () => (repos) => repos.profiles.findByPhone(pick(ORGS, org), pick(PHONES, phone)),
        ),
    ),
  fc
    .record({
      org: fc.nat(1),
      email: fc.integer({ min: 1, max: 3 }),
      limit: fc.integer({ min: 1, max: 3 }),
    })
    .map(
      ({ org, email, limit }) =>
        new Operation(
          `profiles.findByEmail(org ${org}, ${pick(EMAILS, email)}, ${limit})`,
          always,
          async () => (repos) =>
            repos.profiles.findByEmail(pick(ORGS, org), pick(EMAILS, email) ?? "", limit),
        ),
    ),
  fc
    .record({
      org: fc.nat(1),
      phone: fc.option(fc.nat(2), { nil: undefined }),
      email: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      afterSeq: fc.option(fc.nat(8), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 4 }),
    })
    .map((q) => {
      const query = {
        organizationId: pick(ORGS, q.org),
        phoneNumber: q.phone === undefined ? undefined : pick(PHONES, q.phone),
        email: q.email === undefined ? undefined : (pick(EMAILS, q.email) ?? undefined),
        afterSeq: q.afterSeq,
        limit: q.limit,
      };
      return new Operation(
        `profiles.list(${JSON.stringify(query)})`,
        always,
        async () => (repos) => repos.profiles.list(query),
      );
    }),
];

const rateLimitOps = [
  fc
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
          async () => (repos) => repos.rateLimits.hit(`key_${key}`, now, window, limit),
        ),
    ),
];

const deliveryOps = [
  fc.record({ org: fc.nat(1), webhook: fc.nat(1), due: fc.nat(8) }).map(({ org, webhook, due }) => {
    const delivery = aDelivery({
      organizationId: pick(ORGS, org),
      eventId: aUuid(),
      destination: { kind: "subscription", webhookId: pick(WEBHOOKS, webhook) },
      nextAttemptAt: at(due),
    });
    return new Operation(
      `deliveries.insert(org ${org}, webhook ${webhook}, due ${due})`,
      always,
      async () => (repos) => repos.deliveries.insert(delivery),
      (model) => model.deliveries.push(delivery),
    );
  }),
  fc
    .record({
      now: fc.nat(16),
      limit: fc.integer({ min: 1, max: 3 }),
      owner: fc.nat(1),
      lease: fc.constantFrom(3_000, 8_000),
    })
    .map(
      ({ now, limit, owner, lease }) =>
        new Operation(
          `deliveries.claimDue(${now}, ${limit}, ${pick(OWNERS, owner)}, ${lease})`,
          always,
          async () => (repos) =>
            repos.deliveries.claimDue(at(now), limit, pick(OWNERS, owner), lease),
        ),
    ),
  fc
    .record({
      n: fc.nat(),
      owner: fc.nat(1),
      outcome: fc.nat(2),
      t: fc.nat(16),
      status: fc.constantFrom(200, 500, null),
    })
    .map(
      ({ n, owner, outcome, t, status }) =>
        new Operation(
          `deliveries.completeAttempt(#${n}, ${pick(OWNERS, owner)}, ${outcome})`,
          hasDeliveries,
          async (model) => {
            const { id, organizationId } = pick(model.deliveries, n);
            const next = [
              { status: "delivered" as const },
              { status: "failed" as const },
              { status: "pending" as const, nextAttemptAt: at(t + 30) },
            ][outcome] ?? { status: "failed" as const };
            const attempt = {
              deliveryId: id,
              organizationId,
              attempt: n % 4,
              startedAt: at(t),
              durationMs: 40,
              statusCode: status,
              error: status === null ? "timeout" : null,
              responseBody: status === null ? null : "ok",
            };
            return (repos) =>
              repos.deliveries.completeAttempt(id, pick(OWNERS, owner), { attempt, next });
          },
        ),
    ),
  fc.record({ n: fc.nat(), org: fc.nat(1), t: fc.nat(16) }).map(
    ({ n, org, t }) =>
      new Operation(`deliveries.redeliver(#${n}, org ${org})`, hasDeliveries, async (model) => {
        const { id } = pick(model.deliveries, n);
        return (repos) => repos.deliveries.redeliver(pick(ORGS, org), id, at(t));
      }),
  ),
  fc
    .record({ org: fc.nat(1), webhook: fc.nat(1), t: fc.nat(16) })
    .map(
      ({ org, webhook, t }) =>
        new Operation(
          `deliveries.cancelForSubscription(org ${org}, webhook ${webhook})`,
          always,
          async () => (repos) =>
            repos.deliveries.cancelForSubscription(pick(ORGS, org), pick(WEBHOOKS, webhook), at(t)),
        ),
    ),
  fc.constant(
    new Operation(
      "deliveries.nextDueAt()",
      always,
      async () => (repos) => repos.deliveries.nextDueAt(),
    ),
  ),
  fc.nat().map(
    (n) =>
      new Operation(`deliveries.get+listAttempts(#${n})`, hasDeliveries, async (model) => {
        const { id, organizationId } = pick(model.deliveries, n);
        return async (repos) => [
          await repos.deliveries.get(organizationId, id),
          await repos.deliveries.listAttempts(organizationId, id),
        ];
      }),
  ),
];

/** Runs random sequences of `operations` on both storages, then compares what is stored. */
async function agreeWithReference(operations: Array<fc.Arbitrary<Operation>>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.commands(operations, { maxCommands: 60, size: "large" }),
      async (commands) => {
        const memory = memoryStorage();
        const db = new Database(":memory:");
        const sqlite = sqliteStorage(db);
        const model: Model = { profiles: [], deliveries: [] };
        try {
          await fc.asyncModelRun(() => ({ model, real: { memory, sqlite } }), commands);
          // Beyond the answers, what is stored agrees too, inactive rows included.
          const raw = sqliteRawReaders(db);
          expect(await raw.deliveries()).toEqual(await memory.raw.deliveries());
          for (const { id } of model.profiles) {
            expect(await raw.profile(id)).toEqual(await memory.raw.profile(id));
          }
          for (const { id } of model.deliveries) {
            expect(await raw.attempts(id)).toEqual(await memory.raw.attempts(id));
          }
        } finally {
          await sqlite.close();
          await memory.close();
          db.close();
        }
      },
    ),
    { numRuns: 100 },
  );
}

describe("SQLite against the in-memory reference", () => {
  it("random profile operations give the same answers and stored profiles", async () => {
    await agreeWithReference(profileOps);
  });

  it("random rate-limit hits give the same decisions", async () => {
    await agreeWithReference(rateLimitOps);
  });

  it("random delivery operations give the same answers, leases and attempts", async () => {
    await agreeWithReference(deliveryOps);
  });
});
