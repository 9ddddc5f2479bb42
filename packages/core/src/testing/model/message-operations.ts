import fc from "fast-check";
import type { MessageStatus, Topic } from "../../ports.js";
import { aDelivery, aMessage, anEvent, at } from "../contract/fixtures.js";
import { always, has, Operation, readsOf } from "./operation.js";
import { MESSAGE_STATUSES, ORGS, PHONES, pick, URLS } from "./values.js";

const TOPICS: Topic[] = ["message.sent", "message.delivered", "message.failed", "message.expired"];
const refused = { code: "rejected", message: "The upstream refused the message" };
const WEBHOOK = "whk_0000000000000000000000000a";

const insertMessage = fc
  .record({
    org: fc.nat(1),
    status: fc.nat(4),
    viber: fc.boolean(),
    hook: fc.option(fc.nat(1), { nil: undefined }),
    expires: fc.nat(30),
    t: fc.nat(20),
  })
  .map(({ org, status, viber, hook, expires, t }) => {
    const state = pick(MESSAGE_STATUSES, status);
    const message = aMessage({
      organizationId: pick(ORGS, org),
      apiKeyId: `key_0000000000000000000000000${org}`,
      campaignId: `cmp_0000000000000000000000000${org}`,
      profileId: `prf_0000000000000000000000000${org}`,
      phoneNumber: pick(PHONES, t),
      channel: viber ? "viber" : "sms",
      smsFallbackAllowed: viber && t % 2 === 0,
      clientReference: t % 2 === 0 ? null : `ref-${t}`,
      webhookUrl: hook === undefined ? null : pick(URLS, hook),
      status: state,
      error: state === "failed" ? refused : null,
      expiresAt: at(expires),
      createdAt: at(t),
      updatedAt: at(t),
    });
    return new Operation(
      `messages.insert(org ${org}, ${state}, expires ${expires})`,
      always,
      () => (side) => side.repos.messages.insert(message),
      (model) => model.messages.push(message),
    );
  });

const transition = fc
  .record({ n: fc.nat(), from: fc.nat(4), to: fc.nat(4), sms: fc.boolean(), t: fc.nat(40) })
  .map(({ n, from, to, sms, t }) => {
    const expected: MessageStatus = pick(MESSAGE_STATUSES, from);
    const status: MessageStatus = pick(MESSAGE_STATUSES, to);
    return new Operation(
      `messages.transition(#${n}, ${expected} -> ${status})`,
      has("messages"),
      (model) => {
        const { id } = pick(model.messages, n);
        const changes = {
          status,
          channel: sms ? ("sms" as const) : ("viber" as const),
          error: status === "failed" ? refused : null,
          updatedAt: at(t),
        };
        return (side) => side.repos.messages.transition(id, expected, changes);
      },
    );
  });

const advance = fc
  .record({
    n: fc.nat(),
    from: fc.subarray([...MESSAGE_STATUSES]),
    to: fc.nat(4),
    error: fc.constantFrom("kept", "given", "cleared"),
    t: fc.nat(40),
  })
  .map(({ n, from, to, error, t }) => {
    const status: MessageStatus = pick(MESSAGE_STATUSES, to);
    const given = { kept: {}, given: { error: refused }, cleared: { error: null } }[error];
    return new Operation(
      `messages.advance(#${n}, [${from.join(", ")}] -> ${status}, error ${error})`,
      has("messages"),
      (model) => {
        const { id } = pick(model.messages, n);
        return (side) =>
          side.repos.messages.advance(id, from, { status, ...given, updatedAt: at(t) });
      },
    );
  });

const listExpired = fc
  .record({ now: fc.nat(40), limit: fc.integer({ min: 1, max: 4 }) })
  .map(
    ({ now, limit }) =>
      new Operation(
        `messages.listExpired(${now}, ${limit})`,
        always,
        () => (side) => side.repos.messages.listExpired(at(now), limit),
      ),
  );

const insertEvent = fc
  .record({
    n: fc.nat(),
    topic: fc.nat(3),
    t: fc.nat(40),
    outbox: fc.nat(2),
    taken: fc.option(fc.nat(), { nil: undefined }),
  })
  .map(
    ({ n, topic, t, outbox, taken }) =>
      new Operation(
        `messages.insertEvent(#${n}, ${pick(TOPICS, topic)}, ${outbox} deliveries` +
          `${taken === undefined ? "" : ", the last with a taken id"})`,
        has("messages"),
        (model) => {
          const message = pick(model.messages, n);
          const event = anEvent({
            organizationId: message.organizationId,
            messageId: message.id,
            topic: pick(TOPICS, topic),
            error: pick(TOPICS, topic) === "message.failed" ? refused : null,
            createdAt: at(t),
          });
          const deliveries = Array.from({ length: outbox }, (_, i) =>
            aDelivery({
              organizationId: message.organizationId,
              eventId: event.id,
              messageId: message.id,
              topic: event.topic,
              destination:
                i === 0
                  ? { kind: "subscription", webhookId: WEBHOOK }
                  : {
                      kind: "message",
                      url: pick(URLS, t),
                      apiKeyId: "key_0000000000000000000000000a",
                    },
              nextAttemptAt: at(t),
              createdAt: at(t),
              updatedAt: at(t),
            }),
          );
          const last = deliveries.length - 1;
          if (taken !== undefined && last >= 0 && model.deliveries.length > 0) {
            // A taken id refuses the whole call: neither the event nor any delivery is stored.
            deliveries[last] = { ...deliveries[last]!, id: pick(model.deliveries, taken).id };
          } else {
            model.deliveries.push(...deliveries);
          }
          return (side) => side.repos.messages.insertEvent(event, deliveries);
        },
      ),
  );

const readMessage = readsOf("messages", async (repos, organizationId, id) => [
  await repos.messages.get(organizationId, id),
  await repos.messages.getById(id),
  await repos.messages.listEvents(organizationId, id),
  await repos.deliveries.listForMessage(organizationId, id),
]);

/**
 * Random operations on messages: inserts, lifecycle compare-and-set and advance, expiry, events
 * with their deliveries.
 */
export const messageOperations = [
  insertMessage,
  insertMessage,
  transition,
  advance,
  listExpired,
  insertEvent,
  readMessage,
];
