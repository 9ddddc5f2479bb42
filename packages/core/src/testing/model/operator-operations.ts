import fc from "fast-check";
import type {
  CampaignListQuery,
  DeliveryListQuery,
  MessageListQuery,
  Sequenced,
} from "../../ports.js";
import { at } from "../contract/fixtures.js";
import { always, has, Operation } from "./operation.js";
import { MESSAGE_STATUSES, ORGS, PHONES, pick } from "./values.js";
import type { Side } from "./world.js";

const WEBHOOKS = ["whk_0000000000000000000000000a", "whk_0000000000000000000000000b"] as const;
const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const;

/**
 * Pages through a whole newest-first list the way the core does: one extra row, the last
 * row's seq as the next page's bound. Bounded: a list that never ends fails, not hangs.
 */
async function allPages<T extends { id: string }>(
  read: (beforeSeq: number | undefined, limit: number) => Promise<Sequenced<T>[]>,
  size: number,
): Promise<string[][]> {
  const pages: string[][] = [];
  let beforeSeq: number | undefined;
  for (let round = 0; round < 1_000; round += 1) {
    const rows = await read(beforeSeq, size + 1);
    const page = rows.slice(0, size);
    pages.push(page.map((row) => row.id));
    const last = page.at(-1);
    if (rows.length <= size || last === undefined) return pages;
    beforeSeq = last.seq;
  }
  throw new Error("a newest-first list did not end after 1000 pages");
}

const campaignPages = fc
  .record({
    org: fc.nat(1),
    status: fc.option(fc.constantFrom("active", "inactive" as const), { nil: undefined }),
    size: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ org, status, size }) => {
    const query: Omit<CampaignListQuery, "limit"> = { organizationId: pick(ORGS, org), status };
    return new Operation(
      `campaigns.listPage pages(org ${org}, ${status}, ${size})`,
      always,
      () => (side: Side) =>
        allPages(
          (beforeSeq, limit) => side.repos.campaigns.listPage({ ...query, beforeSeq, limit }),
          size,
        ),
    );
  });

const lockedCampaignChange = fc.record({ n: fc.nat(), org: fc.nat(1), t: fc.nat(20) }).map(
  ({ n, org, t }) =>
    new Operation(
      `campaigns lock+update(#${n}, org ${org})`,
      has("campaigns"),
      (model, storages) => {
        const { id } = pick(model.campaigns, n);
        const organizationId = pick(ORGS, org);
        return (side) =>
          (side.name === "reference" ? storages.reference : storages.subject.storage).transaction(
            async (tx) => {
              await tx.campaigns.lock(organizationId, id);
              const current = await tx.campaigns.get(organizationId, id);
              if (current === null) return "not found";
              return tx.campaigns.update({
                ...current,
                channel: current.channel === "sms" ? "viber" : "sms",
                category: "otp",
                updatedAt: at(40 + t),
              });
            },
          );
      },
    ),
);

const messagePages = fc
  .record({
    org: fc.nat(1),
    status: fc.option(fc.nat(4), { nil: undefined }),
    campaign: fc.option(fc.nat(1), { nil: undefined }),
    reference: fc.option(fc.nat(20), { nil: undefined }),
    phone: fc.option(fc.nat(2), { nil: undefined }),
    after: fc.option(fc.nat(20), { nil: undefined }),
    before: fc.option(fc.nat(20), { nil: undefined }),
    size: fc.integer({ min: 1, max: 3 }),
  })
  .map((q) => {
    const query: Omit<MessageListQuery, "limit"> = {
      organizationId: pick(ORGS, q.org),
      status: q.status === undefined ? undefined : pick(MESSAGE_STATUSES, q.status),
      campaignId:
        q.campaign === undefined ? undefined : `cmp_0000000000000000000000000${q.campaign}`,
      clientReference: q.reference === undefined ? undefined : `ref-${q.reference}`,
      phoneNumber: q.phone === undefined ? undefined : pick(PHONES, q.phone),
      createdAfter: q.after === undefined ? undefined : at(q.after),
      createdBefore: q.before === undefined ? undefined : at(q.before),
    };
    return new Operation(
      `messages.listPage pages(${JSON.stringify(q)})`,
      always,
      () => (side: Side) =>
        allPages(
          (beforeSeq, limit) => side.repos.messages.listPage({ ...query, beforeSeq, limit }),
          q.size,
        ),
    );
  });

const deliveryPages = fc
  .record({
    org: fc.nat(1),
    status: fc.option(fc.nat(3), { nil: undefined }),
    failing: fc.option(fc.constant(true), { nil: undefined }),
    webhook: fc.option(fc.nat(1), { nil: undefined }),
    message: fc.option(fc.nat(), { nil: undefined }),
    after: fc.option(fc.nat(8), { nil: undefined }),
    before: fc.option(fc.nat(8), { nil: undefined }),
    size: fc.integer({ min: 1, max: 3 }),
  })
  .map((q) => {
    return new Operation(`deliveries.listPage pages(${JSON.stringify(q)})`, always, (model) => {
      const query: Omit<DeliveryListQuery, "limit"> = {
        organizationId: pick(ORGS, q.org),
        status: q.status === undefined ? undefined : pick(DELIVERY_STATUSES, q.status),
        failing: q.failing,
        webhookId: q.webhook === undefined ? undefined : pick(WEBHOOKS, q.webhook),
        messageId:
          q.message === undefined || model.messages.length === 0
            ? undefined
            : pick(model.messages, q.message).id,
        createdAfter: q.after === undefined ? undefined : at(q.after),
        createdBefore: q.before === undefined ? undefined : at(q.before),
      };
      return (side: Side) =>
        allPages(
          (beforeSeq, limit) => side.repos.deliveries.listPage({ ...query, beforeSeq, limit }),
          q.size,
        );
    });
  });

const requeue = fc
  .record({ org: fc.nat(1), webhook: fc.nat(1), since: fc.nat(8), t: fc.nat(16) })
  .map(
    ({ org, webhook, since, t }) =>
      new Operation(
        `deliveries.requeueForSubscription(org ${org}, webhook ${webhook}, since ${since})`,
        always,
        () => (side) =>
          side.repos.deliveries.requeueForSubscription(
            pick(ORGS, org),
            pick(WEBHOOKS, webhook),
            at(since),
            at(t),
          ),
      ),
  );

/** Campaign pages and locked changes (with the account operations that make campaigns). */
export const campaignQueryOperations = [campaignPages, lockedCampaignChange];

/** Message pages under every filter (with the message operations that make messages). */
export const messageQueryOperations = [messagePages];

/** Delivery pages and subscription recovery (with the delivery operations). */
export const deliveryQueryOperations = [deliveryPages, requeue];
