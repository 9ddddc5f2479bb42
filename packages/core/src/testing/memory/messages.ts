import type {
  CountrySpend,
  MessageChannelCount,
  MessageHourCount,
  MessageRepository,
} from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import {
  appendNew,
  assertNew,
  assignSeq,
  clone,
  createdWithin,
  ms,
  newestFirst,
  oldestCreatedFirst,
  oldestFirst,
  ownedBy,
  storeNew,
} from "./state.js";

/** Messages and their lifecycle events (with the events' outbox deliveries) in memory. */
export function memoryMessages(scope: MemoryScope): MessageRepository {
  return {
    insert: (message) =>
      scope.write("messages.insert", (s) => {
        storeNew(s.messages, message.id, message, "message");
        assignSeq(s, message.id);
      }),
    listPage: (q) =>
      scope.read("messages.listPage", (s) =>
        newestFirst(
          s,
          [...s.messages.values()].filter(
            (m) =>
              m.organizationId === q.organizationId &&
              (q.status === undefined || m.status === q.status) &&
              (q.campaignId === undefined || m.campaignId === q.campaignId) &&
              (q.clientReference === undefined || m.clientReference === q.clientReference) &&
              (q.phoneNumber === undefined || m.phoneNumber === q.phoneNumber) &&
              createdWithin(m.createdAt, q.createdAfter, q.createdBefore),
          ),
          q.beforeSeq,
          q.limit,
        ),
      ),
    get: (organizationId, id) =>
      scope.read("messages.get", (s) => ownedBy(s.messages.get(id), organizationId)),
    getById: (id) => scope.read("messages.getById", (s) => s.messages.get(id) ?? null),
    transition: (id, expectedStatus, changes) =>
      scope.write("messages.transition", (s) => {
        const stored = s.messages.get(id);
        if (stored === undefined || stored.status !== expectedStatus) return false;
        s.messages.set(id, {
          ...stored,
          status: changes.status,
          channel: changes.channel,
          error: clone(changes.error),
          updatedAt: changes.updatedAt,
        });
        return true;
      }),
    advance: (id, from, changes) =>
      scope.write("messages.advance", (s) => {
        const stored = s.messages.get(id);
        if (stored === undefined || !from.includes(stored.status)) return null;
        const advanced = {
          ...stored,
          status: changes.status,
          error: changes.error === undefined ? stored.error : clone(changes.error),
          expiresAt: changes.expiresAt ?? stored.expiresAt,
          updatedAt: changes.updatedAt,
        };
        s.messages.set(id, advanced);
        return advanced;
      }),
    recordLeg: (id, channel, leg) =>
      scope.write("messages.recordLeg", (s) => {
        const stored = s.messages.get(id);
        if (stored === undefined) return false;
        s.messages.set(
          id,
          channel === "viber"
            ? {
                ...stored,
                viberProvider: leg.provider,
                viberProviderMessageId: leg.providerMessageId,
                viberLegNotes: leg.notes ?? null,
              }
            : {
                ...stored,
                smsProvider: leg.provider,
                smsProviderMessageId: leg.providerMessageId,
                smsLegNotes: leg.notes ?? null,
              },
        );
        return true;
      }),
    recordSentFrom: (id, sentFrom) =>
      scope.write("messages.recordSentFrom", (s) => {
        const stored = s.messages.get(id);
        if (stored === undefined || stored.smsSentFrom === sentFrom) return false;
        s.messages.set(id, { ...stored, smsSentFrom: sentFrom });
        return true;
      }),
    scheduleFallback: (id, dueAt, updatedAt) =>
      scope.write("messages.scheduleFallback", (s) => {
        const stored = s.messages.get(id);
        if (
          stored === undefined ||
          stored.status !== "sent" ||
          stored.channel !== "viber" ||
          stored.fallbackDueAt !== null
        ) {
          return null;
        }
        const moved = { ...stored, channel: "sms" as const, fallbackDueAt: dueAt, updatedAt };
        s.messages.set(id, moved);
        return moved;
      }),
    listFallbacksDue: (now, limit) =>
      scope.read("messages.listFallbacksDue", (s) =>
        oldestFirst(
          [...s.messages.values()].filter(
            (m) => m.fallbackDueAt !== null && ms(m.fallbackDueAt) <= ms(now),
          ),
          (m) => m.fallbackDueAt ?? "",
          (m) => m.id,
        )
          .slice(0, limit)
          .map((m) => m.id),
      ),
    listScheduledDue: (status, now, limit) =>
      scope.read("messages.listScheduledDue", (s) =>
        oldestFirst(
          [...s.messages.values()].filter(
            (m) => m.status === status && m.scheduledFor !== null && ms(m.scheduledFor) <= ms(now),
          ),
          (m) => m.scheduledFor ?? "",
          (m) => m.id,
        )
          .slice(0, limit)
          .map((m) => m.id),
      ),
    moveFallback: (id, from, to) =>
      scope.write("messages.moveFallback", (s) => {
        const stored = s.messages.get(id);
        if (stored === undefined || stored.fallbackDueAt !== from) return false;
        s.messages.set(id, { ...stored, fallbackDueAt: to });
        return true;
      }),
    listExpired: (now, limit) =>
      scope.read("messages.listExpired", (s) =>
        oldestFirst(
          [...s.messages.values()].filter((m) => m.status === "sent" && ms(m.expiresAt) <= ms(now)),
          (m) => m.expiresAt,
          (m) => m.id,
        )
          .slice(0, limit)
          .map((m) => m.id),
      ),
    insertEvent: (event, deliveries) =>
      scope.write("messages.insertEvent", (s) => {
        // Every id is checked before anything is stored, so a refused one stores nothing.
        const ids = deliveries.map((d) => d.id);
        for (const id of ids) assertNew(s.deliveries, id, "delivery");
        if (new Set(ids).size < ids.length) {
          throw new Error(`memory storage: two deliveries of event ${event.id} share an id`);
        }
        appendNew(s.events, event, "event");
        for (const delivery of deliveries) {
          storeNew(s.deliveries, delivery.id, delivery, "delivery");
          assignSeq(s, delivery.id);
        }
      }),
    listEvents: (organizationId, messageId) =>
      scope.read("messages.listEvents", (s) =>
        oldestCreatedFirst(
          s.events.filter((e) => e.organizationId === organizationId && e.messageId === messageId),
        ),
      ),
    countByPrefix: (organizationId, since, length) =>
      scope.read("messages.countByPrefix", (s) => {
        const counts = new Map<string, { prefix: string; sample: string; count: number }>();
        for (const message of s.messages.values()) {
          if (message.organizationId !== organizationId) continue;
          if (ms(message.createdAt) < ms(since)) continue;
          const number = message.phoneNumber;
          const prefix = number.slice(0, Math.max(1, Math.trunc(length)));
          const line = counts.get(prefix) ?? { prefix, sample: number, count: 0 };
          if (number < line.sample) line.sample = number;
          line.count += 1;
          counts.set(prefix, line);
        }
        return [...counts.values()];
      }),
    recordPrice: (price) =>
      scope.write("messages.recordPrice", (s) => {
        const key = `${price.messageId} ${price.channel}`;
        const stored = s.prices.get(key);
        if (stored !== undefined && !(stored.amountMicros === 0 && price.amountMicros > 0)) {
          return false;
        }
        s.prices.set(key, clone(price));
        return true;
      }),
    listPrices: (organizationId, messageIds) =>
      scope.read("messages.listPrices", (s) => {
        const ids = new Set(messageIds);
        return [...s.prices.values()].filter(
          (price) => price.organizationId === organizationId && ids.has(price.messageId),
        );
      }),
    spendByCountry: (organizationId, since) =>
      scope.read("messages.spendByCountry", (s) => {
        const sums = new Map<string, CountrySpend>();
        for (const price of s.prices.values()) {
          if (price.organizationId !== organizationId) continue;
          if (ms(price.reportedAt) < ms(since)) continue;
          const key = `${price.country} ${price.currency}`;
          const line = sums.get(key) ?? {
            country: price.country,
            currency: price.currency,
            amountMicros: 0,
            legs: 0,
          };
          line.amountMicros += price.amountMicros;
          line.legs += 1;
          sums.set(key, line);
        }
        return [...sums.values()];
      }),
    countByChannel: (organizationId, since) =>
      scope.read("messages.countByChannel", (s) => {
        const counts = new Map<string, MessageChannelCount>();
        for (const message of s.messages.values()) {
          if (message.organizationId !== organizationId) continue;
          if (ms(message.createdAt) < ms(since)) continue;
          const key = `${message.channel} ${message.status}`;
          const line = counts.get(key) ?? {
            channel: message.channel,
            status: message.status,
            count: 0,
          };
          line.count += 1;
          counts.set(key, line);
        }
        return [...counts.values()];
      }),
    countByHour: (organizationId, since) =>
      scope.read("messages.countByHour", (s) => {
        const counts = new Map<string, MessageHourCount>();
        for (const message of s.messages.values()) {
          if (message.organizationId !== organizationId) continue;
          if (ms(message.createdAt) < ms(since)) continue;
          const hour = message.createdAt.slice(0, 13);
          const key = `${hour} ${message.status}`;
          const line = counts.get(key) ?? { hour, status: message.status, count: 0 };
          line.count += 1;
          counts.set(key, line);
        }
        return [...counts.values()];
      }),
  };
}
