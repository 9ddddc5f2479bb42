import type { PrivacyMatch, PrivacyRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** The condition and values that find an organization's profiles for a privacy request. */
function profileCondition(organizationId: string, match: PrivacyMatch): [string, unknown[]] {
  if ("profileId" in match)
    return ["organization_id = ? AND id = ?", [organizationId, match.profileId]];
  if ("phoneNumber" in match) {
    return ["organization_id = ? AND phone_number = ?", [organizationId, match.phoneNumber]];
  }
  // JavaScript lowers the address, as it lowered the stored `email_lower`.
  return ["organization_id = ? AND email_lower = ?", [organizationId, match.email.toLowerCase()]];
}

/**
 * What erasure and export read and write, the same SQL on both databases; the adapter adds
 * `eraseProfile`, which also clears the lowered e-mail each database keeps beside the e-mail.
 * One statement each, so the caller's transaction makes them one change.
 */
export function privacyRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Omit<PrivacyRepository, "eraseProfile">, A> {
  const profiles = access.table("profiles");
  const messages = access.table("messages");
  const events = access.table("messageEvents");
  const links = access.table("links");
  const deliveries = access.table("deliveries");
  const attempts = access.table("deliveryAttempts");
  const idempotency = access.table("idempotencyRecords");
  const inbound = access.table("inboundMessages");
  const suppressions = access.table("suppressions");
  const consentChanges = access.table("consentChanges");
  const wrote = (count: number) => count > 0;
  return {
    findProfiles(organizationId, match) {
      const [condition, values] = profileCondition(organizationId, match);
      return profiles.many(`${condition} ORDER BY seq`, values);
    },
    messagesOfProfile: (organizationId, profileId) =>
      messages.many("organization_id = ? AND profile_id = ? ORDER BY created_at, id", [
        organizationId,
        profileId,
      ]),
    messagesToNumber: (organizationId, phoneNumber) =>
      messages.many("organization_id = ? AND phone_number = ? ORDER BY created_at, id", [
        organizationId,
        phoneNumber,
      ]),
    eraseMessage: (organizationId, id, error) =>
      access.map(
        messages.update(
          { phoneNumber: "", body: "", error, fallbackDueAt: null },
          "id = ? AND organization_id = ?",
          [id, organizationId],
        ),
        wrote,
      ),
    replaceEventError: (organizationId, eventId, error) =>
      access.map(
        events.update({ error }, "id = ? AND organization_id = ?", [eventId, organizationId]),
        () => undefined,
      ),
    eraseLinks: (organizationId, messageId) =>
      links.update({ originalUrl: "" }, "message_id = ? AND organization_id = ?", [
        messageId,
        organizationId,
      ]),
    rewriteDelivery: (organizationId, id, payload, lastError) =>
      access.map(
        deliveries.update({ payload, lastError }, "id = ? AND organization_id = ?", [
          id,
          organizationId,
        ]),
        wrote,
      ),
    eraseAttempts: (organizationId, deliveryId) =>
      attempts.update(
        { responseBody: null },
        "delivery_id = ? AND organization_id = ? AND response_body IS NOT NULL",
        [deliveryId, organizationId],
      ),
    idempotencyRecordsOfKey: (apiKeyId) => idempotency.many("api_key_id = ?", [apiKeyId]),
    deleteIdempotencyRecord: (apiKeyId, endpoint, key) =>
      access.map(
        idempotency.delete("api_key_id = ? AND endpoint = ? AND key = ?", [
          apiKeyId,
          endpoint,
          key,
        ]),
        wrote,
      ),
    inboundOfPerson(organizationId, numbers, profileIds) {
      const anyOf = (column: string, values: readonly string[]) =>
        values.length === 0 ? "1 = 0" : `${column} IN (${values.map(() => "?").join(", ")})`;
      return inbound.many(
        `organization_id = ? AND (${anyOf("from_number", numbers)} OR ${anyOf("profile_id", profileIds)}) ORDER BY received_at, id`,
        [organizationId, ...numbers, ...profileIds],
      );
    },
    eraseInbound: (organizationId, id) =>
      access.map(
        inbound.update({ fromNumber: "", text: "" }, "id = ? AND organization_id = ?", [
          id,
          organizationId,
        ]),
        wrote,
      ),
    clearSuppressionNote: (organizationId, id) =>
      access.map(
        suppressions.update(
          { note: null, profileId: null, inboundId: null },
          "id = ? AND organization_id = ?",
          [id, organizationId],
        ),
        wrote,
      ),
    clearConsentNotes: (organizationId, profileId) =>
      consentChanges.update(
        { note: null },
        "organization_id = ? AND profile_id = ? AND note IS NOT NULL",
        [organizationId, profileId],
      ),
    deletedNotErased: (deletedBefore, limit) =>
      profiles.many(
        "status = 'inactive' AND phone_number <> '' AND deleted_at <= ? ORDER BY deleted_at, seq LIMIT ?",
        [deletedBefore, limit],
      ),
  };
}
