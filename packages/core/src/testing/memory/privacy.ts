import type { MessageRecord, PrivacyMatch, PrivacyRepository, ProfileRecord } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { idempotencyKey, ms, oldestCreatedFirst } from "./state.js";

const matches = (profile: ProfileRecord, match: PrivacyMatch): boolean => {
  if ("profileId" in match) return profile.id === match.profileId;
  if ("phoneNumber" in match) return profile.phoneNumber === match.phoneNumber;
  return profile.email !== null && profile.email.toLowerCase() === match.email.toLowerCase();
};

/** What erasure and export read and write in memory. */
export function memoryPrivacy(scope: MemoryScope): PrivacyRepository {
  const messagesWhere = (method: string, keep: (message: MessageRecord) => boolean) =>
    scope.read(method, (s) => oldestCreatedFirst([...s.messages.values()].filter(keep)));
  return {
    findProfiles: (organizationId, match) =>
      scope.read("privacy.findProfiles", (s) =>
        [...s.profiles.values()]
          .filter((p) => p.organizationId === organizationId && matches(p, match))
          .sort((a, b) => a.seq - b.seq),
      ),
    messagesOfProfile: (organizationId, profileId) =>
      messagesWhere(
        "privacy.messagesOfProfile",
        (m) => m.organizationId === organizationId && m.profileId === profileId,
      ),
    messagesToNumber: (organizationId, phoneNumber) =>
      messagesWhere(
        "privacy.messagesToNumber",
        (m) => m.organizationId === organizationId && m.phoneNumber === phoneNumber,
      ),
    eraseProfile: (organizationId, id, at) =>
      scope.write("privacy.eraseProfile", (s) => {
        const profile = s.profiles.get(id);
        if (profile?.organizationId !== organizationId) return false;
        s.profiles.set(id, {
          ...profile,
          phoneNumber: "",
          email: null,
          firstName: null,
          lastName: null,
          attributes: {},
          status: "inactive",
          deletedAt: profile.deletedAt ?? at,
          updatedAt: at,
        });
        return true;
      }),
    eraseMessage: (organizationId, id, error) =>
      scope.write("privacy.eraseMessage", (s) => {
        const message = s.messages.get(id);
        if (message?.organizationId !== organizationId) return false;
        s.messages.set(id, { ...message, phoneNumber: "", body: "", error, fallbackDueAt: null });
        return true;
      }),
    replaceEventError: (organizationId, eventId, error) =>
      scope.write("privacy.replaceEventError", (s) => {
        const index = s.events.findIndex(
          (e) => e.id === eventId && e.organizationId === organizationId,
        );
        const event = s.events[index];
        if (event !== undefined) s.events[index] = { ...event, error };
      }),
    eraseLinks: (organizationId, messageId) =>
      scope.write("privacy.eraseLinks", (s) => {
        let erased = 0;
        for (const link of s.links.values()) {
          if (link.organizationId !== organizationId || link.messageId !== messageId) continue;
          s.links.set(link.code, { ...link, originalUrl: "" });
          erased += 1;
        }
        return erased;
      }),
    rewriteDelivery: (organizationId, id, payload, lastError) =>
      scope.write("privacy.rewriteDelivery", (s) => {
        const delivery = s.deliveries.get(id);
        if (delivery?.organizationId !== organizationId) return false;
        s.deliveries.set(id, { ...delivery, payload, lastError });
        return true;
      }),
    eraseAttempts: (organizationId, deliveryId) =>
      scope.write("privacy.eraseAttempts", (s) => {
        let changed = 0;
        s.attempts = s.attempts.map((attempt) => {
          if (
            attempt.deliveryId !== deliveryId ||
            attempt.organizationId !== organizationId ||
            attempt.responseBody === null
          ) {
            return attempt;
          }
          changed += 1;
          return { ...attempt, responseBody: null };
        });
        return changed;
      }),
    idempotencyRecordsOfKey: (apiKeyId) =>
      scope.read("privacy.idempotencyRecordsOfKey", (s) =>
        [...s.idempotency.values()].filter((r) => r.apiKeyId === apiKeyId),
      ),
    deleteIdempotencyRecord: (apiKeyId, endpoint, key) =>
      scope.write("privacy.deleteIdempotencyRecord", (s) =>
        s.idempotency.delete(idempotencyKey(apiKeyId, endpoint, key)),
      ),
    inboundOfPerson: (organizationId, numbers, profileIds) =>
      scope.read("privacy.inboundOfPerson", (s) =>
        s.inbound
          .filter(
            (m) =>
              m.organizationId === organizationId &&
              (numbers.includes(m.fromNumber) ||
                (m.profileId !== null && profileIds.includes(m.profileId))),
          )
          .sort((a, b) => ms(a.receivedAt) - ms(b.receivedAt) || a.id.localeCompare(b.id)),
      ),
    eraseInbound: (organizationId, id) =>
      scope.write("privacy.eraseInbound", (s) => {
        const index = s.inbound.findIndex(
          (m) => m.id === id && m.organizationId === organizationId,
        );
        const message = s.inbound[index];
        if (message === undefined) return false;
        s.inbound[index] = { ...message, fromNumber: "", text: "" };
        return true;
      }),
    clearSuppressionNote: (organizationId, id) =>
      scope.write("privacy.clearSuppressionNote", (s) => {
        for (const [key, suppression] of s.suppressions) {
          if (suppression.id !== id || suppression.organizationId !== organizationId) continue;
          s.suppressions.set(key, {
            ...suppression,
            note: null,
            profileId: null,
            inboundId: null,
          });
          return true;
        }
        return false;
      }),
    clearConsentNotes: (organizationId, profileId) =>
      scope.write("privacy.clearConsentNotes", (s) => {
        let cleared = 0;
        s.consentChanges.forEach((change, index) => {
          const about = change.organizationId === organizationId && change.profileId === profileId;
          if (!about || change.note === null) return;
          s.consentChanges[index] = { ...change, note: null };
          cleared += 1;
        });
        return cleared;
      }),
    deletedNotErased: (deletedBefore, limit) =>
      scope.read("privacy.deletedNotErased", (s) =>
        [...s.profiles.values()]
          .filter(
            (p) =>
              p.status === "inactive" &&
              p.phoneNumber !== "" &&
              p.deletedAt !== null &&
              ms(p.deletedAt) <= ms(deletedBefore),
          )
          .sort((a, b) => ms(a.deletedAt ?? "") - ms(b.deletedAt ?? "") || a.seq - b.seq)
          .slice(0, limit),
      ),
  };
}
