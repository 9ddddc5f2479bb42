import type { ProfileRecord, ProfileRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import type { MemoryState } from "./state.js";
import { assertNew, clone } from "./state.js";

const activeOf = (s: MemoryState, organizationId: string): ProfileRecord[] =>
  [...s.profiles.values()].filter(
    (p) => p.organizationId === organizationId && p.status === "active",
  );

const activeProfile = (
  s: MemoryState,
  organizationId: string,
  id: string,
): ProfileRecord | null => {
  const profile = s.profiles.get(id);
  return profile?.organizationId === organizationId && profile.status === "active" ? profile : null;
};

/** Whether an active profile other than `exceptId` holds the number in the organization. */
const phoneHeld = (s: MemoryState, organizationId: string, phone: string, exceptId?: string) =>
  activeOf(s, organizationId).some((p) => p.phoneNumber === phone && p.id !== exceptId);

/** Profiles in memory; `seq` grows by one per insert across organizations. */
export function memoryProfiles(scope: MemoryScope): ProfileRepository {
  return {
    insert: (profile) =>
      scope.write("profiles.insert", (s) => {
        assertNew(s.profiles, profile.id, "profile");
        if (phoneHeld(s, profile.organizationId, profile.phoneNumber)) return "phone_number_taken";
        s.lastProfileSeq += 1;
        const stored: ProfileRecord = { ...clone(profile), seq: s.lastProfileSeq };
        s.profiles.set(stored.id, stored);
        return stored;
      }),
    get: (organizationId, id) =>
      scope.read("profiles.get", (s) => activeProfile(s, organizationId, id)),
    findByPhone: (organizationId, phoneNumber) =>
      scope.read(
        "profiles.findByPhone",
        (s) => activeOf(s, organizationId).find((p) => p.phoneNumber === phoneNumber) ?? null,
      ),
    findRecipient: (organizationId, phoneNumber, phoneHash) =>
      scope.read("profiles.findRecipient", (s) => ({
        profile: activeOf(s, organizationId).find((p) => p.phoneNumber === phoneNumber) ?? null,
        suppressed: [...s.suppressions.values()]
          .filter((x) => x.organizationId === organizationId && x.phoneHash === phoneHash)
          .map((x) => x.channel),
      })),
    findByEmail: (organizationId, email, limit) =>
      scope.read("profiles.findByEmail", (s) => {
        const wanted = email.toLowerCase();
        return activeOf(s, organizationId)
          .filter((p) => p.email?.toLowerCase() === wanted)
          .sort((a, b) => a.seq - b.seq)
          .slice(0, limit);
      }),
    list: (query) =>
      scope.read("profiles.list", (s) => {
        const email = query.email?.toLowerCase();
        return activeOf(s, query.organizationId)
          .filter(
            (p) =>
              (query.phoneNumber === undefined || p.phoneNumber === query.phoneNumber) &&
              (email === undefined || p.email?.toLowerCase() === email) &&
              (query.afterSeq === undefined || p.seq > query.afterSeq),
          )
          .sort((a, b) => a.seq - b.seq)
          .slice(0, query.limit);
      }),
    update: (profile) =>
      scope.write("profiles.update", (s) => {
        const stored = activeProfile(s, profile.organizationId, profile.id);
        if (stored === null) return false;
        if (phoneHeld(s, profile.organizationId, profile.phoneNumber, profile.id)) {
          return "phone_number_taken";
        }
        // Identity, order, origin and lifecycle stay; everything a PATCH can change is replaced.
        s.profiles.set(profile.id, {
          ...stored,
          phoneNumber: profile.phoneNumber,
          email: profile.email,
          firstName: profile.firstName,
          lastName: profile.lastName,
          viberMarketingConsent: profile.viberMarketingConsent,
          smsMarketingConsent: profile.smsMarketingConsent,
          attributes: clone(profile.attributes),
          timeZone: profile.timeZone,
          updatedAt: profile.updatedAt,
        });
        return true;
      }),
    softDelete: (organizationId, id, at) =>
      scope.write("profiles.softDelete", (s) => {
        const stored = activeProfile(s, organizationId, id);
        if (stored === null) return false;
        s.profiles.set(id, { ...stored, status: "inactive", deletedAt: at, updatedAt: at });
        s.memberships = s.memberships.filter((m) => m.profileId !== id);
        return true;
      }),
  };
}
