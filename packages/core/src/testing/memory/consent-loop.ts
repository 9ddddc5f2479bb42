import type {
  InboundMessageRepository,
  SenderAssignmentRepository,
  SuppressionRepository,
} from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { clone, ms } from "./state.js";

const suppressionKey = (organizationId: string, channel: string, phoneHash: string): string =>
  JSON.stringify([organizationId, channel, phoneHash]);

const newestIdFirst = <T extends { id: string }>(records: T[]): T[] =>
  [...records].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

/** Suppressions and their keys in memory. */
export function memorySuppressions(scope: MemoryScope): SuppressionRepository {
  return {
    key: (organizationId) =>
      scope.read(
        "suppressions.key",
        (s) => s.suppressionKeys.get(organizationId)?.keySealed ?? null,
      ),
    insertKey: (key) =>
      scope.write("suppressions.insertKey", (s) => {
        const stored = s.suppressionKeys.get(key.organizationId);
        if (stored !== undefined) return stored.keySealed;
        s.suppressionKeys.set(key.organizationId, clone(key));
        return key.keySealed;
      }),
    listKeys: () => scope.read("suppressions.listKeys", (s) => [...s.suppressionKeys.values()]),
    insert: (suppression) =>
      scope.write("suppressions.insert", (s) => {
        const key = suppressionKey(
          suppression.organizationId,
          suppression.channel,
          suppression.phoneHash,
        );
        if (s.suppressions.has(key)) return false;
        s.suppressions.set(key, clone(suppression));
        return true;
      }),
    forNumber: (organizationId, phoneHash) =>
      scope.read("suppressions.forNumber", (s) =>
        [...s.suppressions.values()].filter(
          (x) => x.organizationId === organizationId && x.phoneHash === phoneHash,
        ),
      ),
    forNumbers: (organizationId, phoneHashes) =>
      scope.read("suppressions.forNumbers", (s) =>
        [...s.suppressions.values()].filter(
          (x) => x.organizationId === organizationId && phoneHashes.includes(x.phoneHash),
        ),
      ),
    list: (query) =>
      scope.read("suppressions.list", (s) =>
        newestIdFirst(
          [...s.suppressions.values()].filter(
            (x) =>
              x.organizationId === query.organizationId &&
              (query.channel === undefined || x.channel === query.channel) &&
              (query.phoneHash === undefined || x.phoneHash === query.phoneHash) &&
              (query.beforeId === undefined || x.id < query.beforeId),
          ),
        ).slice(0, query.limit),
      ),
    linkProfile: (organizationId, ids, profileId) =>
      scope.write("suppressions.linkProfile", (s) => {
        let written = 0;
        for (const [key, x] of s.suppressions) {
          if (x.organizationId !== organizationId || !ids.includes(x.id)) continue;
          s.suppressions.set(key, { ...x, profileId });
          written += 1;
        }
        return written;
      }),
    delete: (organizationId, channel, phoneHash) =>
      scope.write("suppressions.delete", (s) => {
        const key = suppressionKey(organizationId, channel, phoneHash);
        const stored = s.suppressions.get(key);
        if (stored === undefined) return null;
        s.suppressions.delete(key);
        return stored;
      }),
  };
}

/** Inbound messages in memory. */
export function memoryInbound(scope: MemoryScope): InboundMessageRepository {
  return {
    insert: (message) =>
      scope.write("inbound.insert", (s) => {
        const taken = s.inbound.some(
          (m) =>
            m.organizationId === message.organizationId &&
            m.provider === message.provider &&
            m.providerMessageId === message.providerMessageId,
        );
        if (taken) return false;
        if (s.inbound.some((m) => m.id === message.id)) {
          throw new Error(`memory storage: duplicate inbound message id ${message.id}`);
        }
        s.inbound.push(clone(message));
        return true;
      }),
    list: (query) =>
      scope.read("inbound.list", (s) =>
        newestIdFirst(
          s.inbound.filter(
            (m) =>
              m.organizationId === query.organizationId &&
              (query.channel === undefined || m.channel === query.channel) &&
              (query.fromNumber === undefined || m.fromNumber === query.fromNumber) &&
              (query.beforeId === undefined || m.id < query.beforeId),
          ),
        ).slice(0, query.limit),
      ),
    getMany: (organizationId, ids) =>
      scope.read("inbound.getMany", (s) =>
        s.inbound.filter((m) => m.organizationId === organizationId && ids.includes(m.id)),
      ),
    deleteReceivedBefore: (before, limit) =>
      scope.write("inbound.deleteReceivedBefore", (s) => {
        const old = [...s.inbound]
          .filter((m) => ms(m.receivedAt) < ms(before))
          .sort((a, b) => ms(a.receivedAt) - ms(b.receivedAt))
          .slice(0, limit);
        const gone = new Set(old.map((m) => m.id));
        s.inbound = s.inbound.filter((m) => !gone.has(m.id));
        return old.length;
      }),
    messageOwners: (phoneNumber, sender, since) =>
      scope.read("inbound.messageOwners", (s) => {
        const owners = new Set<string>();
        for (const m of s.messages.values()) {
          if (m.phoneNumber !== phoneNumber || ms(m.createdAt) < ms(since)) continue;
          const campaign = s.campaigns.get(m.campaignId);
          const fallbackSender = m.channel === "sms" ? campaign?.smsSender : undefined;
          if (m.sender === sender || m.smsSentFrom === sender || fallbackSender === sender) {
            owners.add(m.organizationId);
          }
        }
        return [...owners];
      }),
  };
}

/** Sender assignments in memory. */
export function memorySenders(scope: MemoryScope): SenderAssignmentRepository {
  const same = (a: { organizationId: string; channel: string; sender: string }, b: typeof a) =>
    a.organizationId === b.organizationId && a.channel === b.channel && a.sender === b.sender;
  return {
    assign: (assignment) =>
      scope.write("senders.assign", (s) => {
        if (s.senderAssignments.some((a) => same(a, assignment))) return false;
        s.senderAssignments.push(clone(assignment));
        return true;
      }),
    unassign: (organizationId, channel, sender) =>
      scope.write("senders.unassign", (s) => {
        const before = s.senderAssignments.length;
        s.senderAssignments = s.senderAssignments.filter(
          (a) => !same(a, { organizationId, channel, sender }),
        );
        return s.senderAssignments.length < before;
      }),
    list: (organizationId) =>
      scope.read("senders.list", (s) =>
        s.senderAssignments.filter(
          (a) => organizationId === undefined || a.organizationId === organizationId,
        ),
      ),
    owners: (channel, sender) =>
      scope.read("senders.owners", (s) =>
        s.senderAssignments
          .filter((a) => a.channel === channel && a.sender === sender)
          .map((a) => a.organizationId),
      ),
  };
}
