import fc from "fast-check";
import type { CampaignRecord, WebhookSubscriptionChanges, WebhookTopic } from "../../ports.js";
import { aCampaign, anApiKey, at, aWebhook } from "../contract/fixtures.js";
import { always, has, Operation, readsOf } from "./operation.js";
import { ORGS, pick, URLS } from "./values.js";

const TOPIC_SETS: WebhookTopic[][] = [
  ["message.sent"],
  ["message.delivered", "message.failed"],
  ["message.sent", "message.delivered", "message.seen", "message.clicked"],
];

const insertCampaign = fc
  .record({ org: fc.nat(1), viber: fc.boolean(), promo: fc.boolean(), t: fc.nat(20) })
  .map(({ org, viber, promo, t }) => {
    const campaign = aCampaign({
      organizationId: pick(ORGS, org),
      channel: viber ? "viber" : "sms",
      smsFallback: viber && promo,
      category: promo ? "promotional" : "otp",
      status: t % 3 === 0 ? "inactive" : "active",
      createdAt: at(t),
      updatedAt: at(t),
    });
    return new Operation(
      `campaigns.insert(org ${org}, ${campaign.channel})`,
      always,
      () => (side) => side.repos.campaigns.insert(campaign),
      (model) => model.campaigns.push(campaign),
    );
  });

const updateCampaign = fc
  .record({
    n: fc.nat(),
    org: fc.option(fc.nat(1), { nil: undefined }),
    active: fc.boolean(),
    t: fc.nat(20),
  })
  .map(
    ({ n, org, active, t }) =>
      new Operation(
        `campaigns.update(#${n}, org ${org ?? "own"}, ${active ? "active" : "inactive"})`,
        has("campaigns"),
        async (model, storages) => {
          const { id } = pick(model.campaigns, n);
          const stored = (await storages.reference.raw.campaign(id)) as CampaignRecord;
          const changed: CampaignRecord = {
            ...stored,
            organizationId: org === undefined ? stored.organizationId : pick(ORGS, org),
            name: `Renamed ${n}`,
            template: `Code {{code}} #${n}`,
            ttlSeconds: 60 + n,
            status: active ? "active" : "inactive",
            updatedAt: at(20 + t),
          };
          return (side) => side.repos.campaigns.update(changed);
        },
      ),
  );

const readCampaigns = readsOf("campaigns", async (repos, organizationId, id) => [
  await repos.campaigns.get(organizationId, id),
  await repos.campaigns.list(organizationId),
]);

const insertApiKey = fc
  .record({ org: fc.nat(1), t: fc.nat(20), expires: fc.boolean() })
  .map(({ org, t, expires }) => {
    const key = anApiKey({
      organizationId: pick(ORGS, org),
      scopes: expires ? ["messages:send"] : ["profiles:read", "webhooks:manage"],
      expiresAt: expires ? at(1_000 + t) : null,
      createdAt: at(t),
    });
    return new Operation(
      `apiKeys.insert(org ${org})`,
      always,
      () => (side) => side.repos.apiKeys.insert(key),
      (model) => model.apiKeys.push(key),
    );
  });

const revokeAndReadApiKeys = fc
  .record({ n: fc.nat(), org: fc.nat(1), revoke: fc.boolean(), t: fc.nat(20) })
  .map(
    ({ n, org, revoke, t }) =>
      new Operation(
        `apiKeys ${revoke ? "revoke+" : ""}reads(#${n}, org ${org})`,
        has("apiKeys"),
        (model) => {
          const { id } = pick(model.apiKeys, n);
          return async (side) => [
            revoke ? await side.repos.apiKeys.revoke(id, at(t)) : "kept",
            await side.repos.apiKeys.get(id),
            await side.repos.apiKeys.list(pick(ORGS, org)),
          ];
        },
      ),
  );

const insertWebhook = fc
  .record({
    org: fc.nat(1),
    url: fc.nat(1),
    topics: fc.nat(2),
    active: fc.boolean(),
    t: fc.nat(20),
  })
  .map(({ org, url, topics, active, t }) => {
    const webhook = aWebhook({
      organizationId: pick(ORGS, org),
      url: pick(URLS, url),
      topics: pick(TOPIC_SETS, topics),
      status: active ? "active" : "inactive",
      description: active ? null : "paused",
      createdAt: at(t),
      updatedAt: at(t),
    });
    return new Operation(
      `webhooks.insert(org ${org}, url ${url}, topics ${topics})`,
      always,
      () => (side) => side.repos.webhooks.insert(webhook),
      (model) => model.webhooks.push(webhook),
    );
  });

const updateWebhook = fc
  .record({
    n: fc.nat(),
    org: fc.option(fc.nat(1), { nil: undefined }),
    topics: fc.nat(2),
    t: fc.nat(20),
  })
  .map(
    ({ n, org, topics, t }) =>
      new Operation(
        `webhooks.update(#${n}, org ${org ?? "own"}, topics ${topics})`,
        has("webhooks"),
        async (model, storages) => {
          const { id, organizationId } = pick(model.webhooks, n);
          // A deleted subscription is updated from its last known shape: the answer is `false`.
          const stored =
            (await storages.reference.raw.webhook(id)) ??
            aWebhook({ id, organizationId, createdAt: at(0) });
          const target = org === undefined ? stored.organizationId : pick(ORGS, org);
          // Some of the fields, so the ones left out are seen to keep their stored values.
          const changes: WebhookSubscriptionChanges = {
            topics: pick(TOPIC_SETS, topics),
            status: stored.status === "active" ? "inactive" : "active",
            ...(n % 2 === 0 ? { secretSealed: `sealed:rotated-${n}` } : {}),
            updatedAt: at(20 + t),
          };
          return (side) => side.repos.webhooks.update(target, id, changes);
        },
      ),
  );

const deleteWebhook = fc.record({ n: fc.nat(), org: fc.nat(1) }).map(
  ({ n, org }) =>
    new Operation(`webhooks.delete(#${n}, org ${org})`, has("webhooks"), (model) => {
      const { id } = pick(model.webhooks, n);
      return (side) => side.repos.webhooks.delete(pick(ORGS, org), id);
    }),
);

const readWebhooks = readsOf("webhooks", async (repos, organizationId, id) => [
  await repos.webhooks.get(organizationId, id),
  await repos.webhooks.getById(id),
  await repos.webhooks.list(organizationId),
]);

/** Random operations on campaigns, API keys and webhook subscriptions. */
export const accountOperations = [
  insertCampaign,
  updateCampaign,
  readCampaigns,
  insertApiKey,
  revokeAndReadApiKeys,
  insertWebhook,
  insertWebhook,
  updateWebhook,
  deleteWebhook,
  readWebhooks,
];
