import type {
  InboundMessageRepository,
  SenderAssignmentRepository,
  SuppressionRepository,
} from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/**
 * The condition and values of a newest-first page ordered by id (a UUID v7, so by time): each
 * column equal to its value where one is given, `id < beforeId` after the first page. Only
 * present filters become parameters, as in the seq-ordered lists (`newestFirstPages`), so each
 * combination has a plan and an index of its own.
 */
function newestById(
  page: { beforeId?: string | undefined; limit: number },
  equal: Readonly<Record<string, unknown>>,
): [string, unknown[]] {
  const given = Object.entries(equal).filter(([, value]) => value !== undefined);
  const where = given.map(([column]) => `${column} = ?`);
  const values = given.map(([, value]) => value);
  if (page.beforeId !== undefined) {
    where.push("id < ?");
    values.push(page.beforeId);
  }
  return [`${where.join(" AND ")} ORDER BY id DESC LIMIT ?`, [...values, page.limit]];
}

/** Suppressions and their keys, the same SQL on both databases. */
export function suppressionRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<SuppressionRepository, A> {
  const keys = access.table("suppressionKeys");
  const rows = access.table("suppressions");
  return {
    key: (organizationId) =>
      access.map(
        keys.one("organization_id = ?", [organizationId]),
        (key) => key?.keySealed ?? null,
      ),
    insertKey: (key) =>
      access.inTurn(
        () => keys.insertNew(key, "(organization_id)"),
        () => keys.one("organization_id = ?", [key.organizationId]),
        (_, stored) => stored?.keySealed ?? key.keySealed,
      ),
    listKeys: () => keys.many("1 = 1 ORDER BY created_at, organization_id", []),
    insert: (suppression) => rows.insertNew(suppression, "(organization_id, channel, phone_hash)"),
    forNumber: (organizationId, phoneHash) =>
      rows.many("organization_id = ? AND phone_hash = ?", [organizationId, phoneHash]),
    forNumbers: (organizationId, phoneHashes) =>
      rows.many(
        phoneHashes.length === 0
          ? "1 = 0"
          : `organization_id = ? AND phone_hash IN (${phoneHashes.map(() => "?").join(", ")})`,
        phoneHashes.length === 0 ? [] : [organizationId, ...phoneHashes],
      ),
    list: (query) =>
      rows.many(
        ...newestById(query, {
          organization_id: query.organizationId,
          channel: query.channel,
          phone_hash: query.phoneHash,
        }),
      ),
    linkProfile: (organizationId, ids, profileId) =>
      rows.update(
        { profileId },
        ids.length === 0
          ? "1 = 0"
          : `organization_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
        ids.length === 0 ? [] : [organizationId, ...ids],
      ),
    delete: (organizationId, channel, phoneHash) =>
      rows.take("organization_id = ? AND channel = ? AND phone_hash = ?", [
        organizationId,
        channel,
        phoneHash,
      ]),
  };
}

/** Inbound messages, the same SQL on both databases. */
export function inboundRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<InboundMessageRepository, A> {
  const rows = access.table("inboundMessages");
  return {
    insert: (message) =>
      rows.insertNew(message, "(organization_id, provider, provider_message_id)"),
    list: (query) =>
      rows.many(
        ...newestById(query, {
          organization_id: query.organizationId,
          channel: query.channel,
          from_number: query.fromNumber,
        }),
      ),
    getMany: (organizationId, ids) =>
      rows.many(
        ids.length === 0
          ? "1 = 0"
          : `organization_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
        ids.length === 0 ? [] : [organizationId, ...ids],
      ),
    deleteReceivedBefore: (before, limit) =>
      rows.delete(
        `id IN (SELECT id FROM ${access.tableName("inboundMessages")}
          WHERE received_at < ? ORDER BY received_at LIMIT ?)`,
        [before, limit],
      ),
    // One probe of each organization's index of its messages by number: no index on messages
    // serves this query alone, which every send would have to keep up for the rare reply.
    // `created_at || ''` keeps the organization's index by time out of it: without statistics
    // SQLite would walk every message of the retention period rather than the number's few.
    messageOwners(phoneNumber, sender, since) {
      const organizations = access.tableName("organizations");
      const messages = access.tableName("messages");
      const campaigns = access.tableName("campaigns");
      return access.map(
        access.select(
          `SELECT o.id AS organization_id FROM ${organizations} o
           WHERE EXISTS (SELECT 1 FROM ${messages} m
             WHERE m.organization_id = o.id AND m.phone_number = ? AND m.created_at || '' >= ?
               AND (m.sender = ? OR m.sms_sent_from = ?
                 OR (m.channel = 'sms' AND EXISTS (SELECT 1 FROM ${campaigns} c
                   WHERE c.id = m.campaign_id AND c.sms_sender = ?))))`,
          [phoneNumber, since, sender, sender, sender],
        ),
        (found) =>
          found.map((row) => String((row as { organization_id: unknown }).organization_id)),
      );
    },
  };
}

/** Sender assignments, the same SQL on both databases. */
export function senderRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<SenderAssignmentRepository, A> {
  const rows = access.table("senderAssignments");
  return {
    assign: (assignment) => rows.insertNew(assignment, "(organization_id, channel, sender)"),
    unassign: (organizationId, channel, sender) =>
      access.map(
        rows.delete("organization_id = ? AND channel = ? AND sender = ?", [
          organizationId,
          channel,
          sender,
        ]),
        (deleted) => deleted > 0,
      ),
    list: (organizationId) =>
      organizationId === undefined
        ? rows.many("1 = 1 ORDER BY created_at, organization_id, channel, sender", [])
        : rows.many("organization_id = ? ORDER BY created_at, channel, sender", [organizationId]),
    owners: (channel, sender) =>
      access.map(
        rows.many("channel = ? AND sender = ? ORDER BY created_at, organization_id", [
          channel,
          sender,
        ]),
        (found) => found.map((a) => a.organizationId),
      ),
  };
}
