import type { Repositories } from "@tidings/core";
import {
  aConsentChange,
  aContactList,
  aMembership,
  anAttempt,
  anIdempotencyRecord,
  at,
  completeOne,
  seedDelivery,
  seedOrganization,
} from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import type { RecordedCall } from "./testing/recording-database.js";
import { recordingDatabase } from "./testing/recording-database.js";

type PlanRow = { detail: string };

const planOf = (db: Database.Database, sql: string, params: unknown[]): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as PlanRow[]).map((row) => row.detail);

/** A full table scan: `SCAN profiles`, as opposed to `SEARCH …` or a scan of an index. */
const fullScan = (detail: string): boolean => /^SCAN \w+$/.test(detail);

/** Calls every repository method once, labelling the statements each one runs. */
async function exerciseEveryLookup(repos: Repositories, label: (name: string) => void) {
  const org = await seedOrganization(repos);
  const organizationId = org.organization.id;
  const { profile } = org;
  const list = aContactList({ organizationId });
  const step = async (name: string, call: () => Promise<unknown>) => {
    label(name);
    await call();
  };
  await step("organizations.get", () => repos.organizations.get(organizationId));
  await step("profiles.get", () => repos.profiles.get(organizationId, profile.id));
  await step("profiles.findByPhone", () =>
    repos.profiles.findByPhone(organizationId, profile.phoneNumber),
  );
  await step("profiles.findRecipient", () =>
    repos.profiles.findRecipient(organizationId, profile.phoneNumber, "hash"),
  );
  await step("inbound.messageOwners", () =>
    repos.inbound.messageOwners(profile.phoneNumber, "Acme", at(0)),
  );
  await step("profiles.findByEmail", () => repos.profiles.findByEmail(organizationId, "a@b.c", 2));
  await step("profiles.list", () => repos.profiles.list({ organizationId, afterSeq: 1, limit: 3 }));
  await step("profiles.list+phone", () =>
    repos.profiles.list({ organizationId, phoneNumber: profile.phoneNumber, limit: 3 }),
  );
  await step("profiles.list+email", () =>
    repos.profiles.list({ organizationId, email: "A@b.c", afterSeq: 1, limit: 3 }),
  );
  await step("profiles.update", () => repos.profiles.update({ ...profile, firstName: "Bo" }));
  await step("consent.insert", () =>
    repos.consent.insert(aConsentChange({ organizationId, profileId: profile.id })),
  );
  await step("consent.listForProfile", () =>
    repos.consent.listForProfile(organizationId, profile.id),
  );
  await step("contactLists.insert", () => repos.contactLists.insert(list));
  await step("contactLists.get", () => repos.contactLists.get(organizationId, list.id));
  await step("contactLists.findByName", () =>
    repos.contactLists.findByName(organizationId, list.name),
  );
  await step("contactLists.list", () => repos.contactLists.list(organizationId));
  await step("contactLists.addMember", () =>
    repos.contactLists.addMember(
      aMembership({ organizationId, listId: list.id, profileId: profile.id }),
    ),
  );
  await step("contactLists.listMembers", () =>
    repos.contactLists.listMembers(organizationId, list.id),
  );
  await step("contactLists.listsOfProfile", () =>
    repos.contactLists.listsOfProfile(organizationId, profile.id),
  );
  await step("contactLists.removeMember", () =>
    repos.contactLists.removeMember(organizationId, list.id, profile.id),
  );
  await step("campaigns.get", () => repos.campaigns.get(organizationId, org.campaign.id));
  await step("campaigns.list", () => repos.campaigns.list(organizationId));
  await step("campaigns.update", () => repos.campaigns.update({ ...org.campaign, name: "New" }));
  await step("campaigns.listPage", () => repos.campaigns.listPage({ organizationId, limit: 3 }));
  await step("campaigns.listPage+status", () =>
    repos.campaigns.listPage({ organizationId, status: "active", beforeSeq: 9, limit: 3 }),
  );
  await step("apiKeys.get", () => repos.apiKeys.get(org.apiKey.id));
  await step("apiKeys.list", () => repos.apiKeys.list(organizationId));
  label("seed");
  const delivery = await seedDelivery(repos, org);
  const messageId = delivery.messageId ?? "";
  const webhookId =
    delivery.destination.kind === "subscription" ? delivery.destination.webhookId : "";
  await step("messages.get", () => repos.messages.get(organizationId, messageId));
  await step("messages.getById", () => repos.messages.getById(messageId));
  const page = { organizationId, beforeSeq: 1_000, limit: 51 };
  await step("messages.listPage", () => repos.messages.listPage(page));
  await step("messages.listPage+status", () =>
    repos.messages.listPage({ ...page, status: "sent" }),
  );
  await step("messages.listPage+campaign", () =>
    repos.messages.listPage({ ...page, campaignId: org.campaign.id }),
  );
  await step("messages.listPage+reference", () =>
    repos.messages.listPage({ ...page, clientReference: "order-1" }),
  );
  await step("messages.listPage+phone", () =>
    repos.messages.listPage({ ...page, phoneNumber: "+306940000000" }),
  );
  await step("messages.listPage+created", () =>
    repos.messages.listPage({ ...page, createdAfter: at(0), createdBefore: at(9) }),
  );
  await step("deliveries.listPage", () => repos.deliveries.listPage(page));
  await step("deliveries.listPage+status", () =>
    repos.deliveries.listPage({ ...page, status: "failed" }),
  );
  await step("deliveries.listPage+webhook", () =>
    repos.deliveries.listPage({ ...page, webhookId, status: "failed" }),
  );
  await step("deliveries.listPage+message", () =>
    repos.deliveries.listPage({ ...page, messageId }),
  );
  await step("messages.listExpired", () => repos.messages.listExpired(at(100), 10));
  await step("messages.listEvents", () => repos.messages.listEvents(organizationId, messageId));
  await step("messages.transition", () =>
    repos.messages.transition(messageId, "sent", {
      status: "delivered",
      channel: "sms",
      error: null,
      updatedAt: at(1),
    }),
  );
  await step("messages.advance", () =>
    repos.messages.advance(messageId, ["delivered", "seen"], {
      status: "clicked",
      updatedAt: at(2),
    }),
  );
  await step("webhooks.get", () => repos.webhooks.get(organizationId, webhookId));
  await step("webhooks.getById", () => repos.webhooks.getById(webhookId));
  await step("webhooks.list", () => repos.webhooks.list(organizationId));
  await step("deliveries.get", () => repos.deliveries.get(organizationId, delivery.id));
  await step("deliveries.listForMessage", () =>
    repos.deliveries.listForMessage(organizationId, messageId),
  );
  await step("deliveries.nextDueAt", () => repos.deliveries.nextDueAt());
  await step("deliveries.failingDestinations", () =>
    repos.deliveries.failingDestinations({ organizationId, since: at(0), limit: 10, scan: 100 }),
  );
  await step("retention.deleteExpiredConsoleSessions", () =>
    repos.retention.deleteExpiredConsoleSessions(at(0), 10),
  );
  await step("deliveries.claimDue", () => repos.deliveries.claimDue(at(5), 10, "engine", 30_000));
  await step("deliveries.claimDue+excluded", () =>
    repos.deliveries.claimDue(at(5), 10, "engine", 30_000, {
      excludeDestinations: ["whk_saturated"],
    }),
  );
  await step("deliveries.claimDue+only", () =>
    repos.deliveries.claimDue(at(5), 10, "engine", 30_000, {
      onlyDestinations: [delivery.destinationKey],
      perDestination: 2,
    }),
  );
  await step("deliveries.rekeyForSubscription", () =>
    repos.deliveries.rekeyForSubscription(organizationId, "whk_moved", "org_x https://x.example"),
  );
  await step("deliveries.dueNowForDestination", () =>
    repos.deliveries.dueNowForDestination(delivery.destinationKey, at(5)),
  );
  await step("deliveries.completeAttempts", () =>
    completeOne(repos.deliveries, delivery.id, "engine", {
      attempt: anAttempt({ organizationId, deliveryId: delivery.id }),
      next: { status: "failed" },
    }),
  );
  await step("deliveries.listAttempts", () =>
    repos.deliveries.listAttempts(organizationId, delivery.id),
  );
  await step("deliveries.redeliver", () =>
    repos.deliveries.redeliver(organizationId, delivery.id, at(9)),
  );
  await step("deliveries.requeueForSubscription", () =>
    repos.deliveries.requeueForSubscription(organizationId, webhookId, at(0), at(9)),
  );
  await step("deliveries.cancelForSubscription", () =>
    repos.deliveries.cancelForSubscription(organizationId, webhookId, at(10)),
  );
  await step("rateLimits.hit", async () => {
    for (let i = 0; i < 3; i++) await repos.rateLimits.hit("key", 1000 + i, 60_000, 2);
  });
  const record = anIdempotencyRecord({ apiKeyId: org.apiKey.id });
  await step("idempotency.begin", async () => {
    await repos.idempotency.begin(record, at(0));
    await repos.idempotency.begin(record, at(0));
  });
  const holder = [record.apiKeyId, record.endpoint, record.key, record.lockedUntil ?? ""] as const;
  await step("idempotency.markRecoveryPoint", () =>
    repos.idempotency.markRecoveryPoint(...holder, "message:m"),
  );
  await step("idempotency.complete", () =>
    repos.idempotency.complete(...holder, { status: 201, body: "{}", headers: {} }),
  );
  await step("idempotency.release", () => repos.idempotency.release(...holder));
  await step("webhooks.delete", () => repos.webhooks.delete(organizationId, webhookId));
  await step("profiles.softDelete", () =>
    repos.profiles.softDelete(organizationId, profile.id, at(11)),
  );
  label("");
}

/** The first recorded statement of a step whose SQL matches `pattern`. */
const statementOf = (calls: RecordedCall[], label: string, pattern: RegExp): RecordedCall => {
  const call = calls.find((c) => c.label === label && pattern.test(c.sql));
  if (call === undefined) throw new Error(`no statement recorded for ${label}`);
  return call;
};

describe("query plans", () => {
  it("no statement any repository method runs scans a whole table", async () => {
    const raw = new Database(":memory:");
    const recording = recordingDatabase(raw);
    const storage = sqliteStorage(recording.db);
    await exerciseEveryLookup(storage, recording.label);
    const labelled = recording.calls.filter((call) => call.label !== "" && call.label !== "seed");
    expect(new Set(labelled.map((call) => call.label)).size).toBeGreaterThan(40);
    const scans = labelled.flatMap((call) => {
      const plan = planOf(raw, call.sql, call.params);
      // A subquery's own rows (a co-routine or a materialized one) are not a table.
      const subqueries = plan.flatMap(
        (d) => /^(?:CO-ROUTINE|MATERIALIZE) (\w+)$/.exec(d)?.[1] ?? [],
      );
      return plan
        .filter((detail) => fullScan(detail) && !subqueries.includes(detail.slice("SCAN ".length)))
        .map((detail) => `${call.label}: ${detail}`);
    });
    expect(scans).toEqual([]);
    await storage.close();
    raw.close();
  });

  it("each core lookup searches the index made for it", async () => {
    const raw = new Database(":memory:");
    const recording = recordingDatabase(raw);
    const storage = sqliteStorage(recording.db);
    await exerciseEveryLookup(storage, recording.label);
    const expectations: Array<[string, RegExp, string]> = [
      ["profiles.findByPhone", /^SELECT/, "profiles_active_phone"],
      ["profiles.findRecipient", /^\/\* one plan \*\/ SELECT/, "profiles_active_phone"],
      // The unique (organization_id, channel, phone_hash) key, sought once per channel.
      ["profiles.findRecipient", /^\/\* one plan \*\/ SELECT/, "sqlite_autoindex_suppressions_2"],
      ["inbound.messageOwners", /^SELECT/, "messages_organization_phone"],
      ["profiles.findByEmail", /^SELECT/, "profiles_active_email"],
      ["profiles.list", /^SELECT/, "profiles_active_seq"],
      ["profiles.list+phone", /^SELECT/, "profiles_active_phone"],
      ["profiles.list+email", /^SELECT/, "profiles_active_email"],
      ["deliveries.claimDue", /destination_key >/, "deliveries_destination_due"],
      ["deliveries.claimDue", /destination_key = /, "deliveries_destination_due"],
      ["deliveries.claimDue+excluded", /destination_key >/, "deliveries_destination_due"],
      ["deliveries.claimDue+excluded", /destination_key = /, "deliveries_destination_due"],
      ["deliveries.claimDue+only", /destination_key = /, "deliveries_destination_due"],
      ["deliveries.rekeyForSubscription", /^UPDATE/, "deliveries_subscription"],
      ["deliveries.dueNowForDestination", /^UPDATE/, "deliveries_destination_due"],
      ["deliveries.nextDueAt", /^SELECT/, "deliveries_due"],
      ["deliveries.cancelForSubscription", /^UPDATE/, "deliveries_subscription"],
      ["deliveries.listAttempts", /^SELECT/, "delivery_attempts_delivery"],
      ["deliveries.listForMessage", /^SELECT/, "deliveries_message"],
      ["messages.listExpired", /^SELECT/, "messages_expiry"],
      ["messages.listEvents", /^SELECT/, "message_events_message"],
      ["messages.advance", /^UPDATE/, "sqlite_autoindex_messages_1"],
      ["rateLimits.hit", /rate_limit_counts/, "rate_limit_hits_key"],
      ["rateLimits.hit", /^DELETE/, "rate_limit_hits_key"],
      ["consent.listForProfile", /^SELECT/, "consent_changes_profile"],
      ["contactLists.listMembers", /^SELECT/, "list_memberships_list"],
      ["contactLists.listsOfProfile", /^SELECT/, "list_memberships_profile"],
      ["campaigns.list", /^SELECT/, "campaigns_organization"],
      ["campaigns.listPage", /^SELECT/, "campaigns_organization_seq"],
      ["messages.listPage", /^SELECT/, "messages_organization"],
      ["messages.listPage+status", /^SELECT/, "messages_organization_status"],
      ["messages.listPage+campaign", /^SELECT/, "messages_organization_campaign"],
      ["messages.listPage+reference", /^SELECT/, "messages_organization_reference"],
      ["messages.listPage+phone", /^SELECT/, "messages_organization_phone"],
      ["messages.listPage+created", /^SELECT/, "messages_organization"],
      ["deliveries.listPage", /^SELECT/, "deliveries_organization"],
      ["deliveries.listPage+status", /^SELECT/, "deliveries_organization_status"],
      ["deliveries.listPage+webhook", /^SELECT/, "deliveries_webhook"],
      ["deliveries.requeueForSubscription", /^UPDATE/, "deliveries_webhook"],
      ["apiKeys.list", /^SELECT/, "api_keys_organization"],
      ["webhooks.list", /^SELECT/, "webhook_subscriptions_organization"],
    ];
    // The Overview's failing destinations read each status's newest rows backwards along the
    // index, then group a bounded number of them (the grouping's sort is of those rows only).
    const failing = statementOf(recording.calls, "deliveries.failingDestinations", /^SELECT/);
    const failingPlan = planOf(raw, failing.sql, failing.params).join("\n");
    expect(failingPlan.match(/INDEX deliveries_organization_status /g)).toHaveLength(2);
    // A hit reads its key's count, never the window's rows.
    const hit = statementOf(recording.calls, "rateLimits.hit", /rate_limit_counts/);
    expect(planOf(raw, hit.sql, hit.params).join("\n")).toMatch(
      /SEARCH rate_limit_counts USING PRIMARY KEY \(key=\?\)/,
    );
    for (const [table, pattern] of [
      ["console_sign_in_tokens", /^DELETE FROM console_sign_in_tokens/],
      ["console_sessions", /^DELETE FROM console_sessions/],
    ] as const) {
      const sweep = statementOf(recording.calls, "retention.deleteExpiredConsoleSessions", pattern);
      expect(planOf(raw, sweep.sql, sweep.params).join("\n")).toContain(`${table}_expiry`);
    }
    for (const [label, pattern, index] of expectations) {
      const call = statementOf(recording.calls, label, pattern);
      const plan = planOf(raw, call.sql, call.params).join("\n");
      expect(plan, label).toMatch(new RegExp(`INDEX ${index}( |$)`, "m"));
      // Lists come out of the index in order; only claimDue re-sorts its few RETURNING rows.
      expect(plan, label).not.toContain("TEMP B-TREE");
    }
    await storage.close();
    raw.close();
  });
});
