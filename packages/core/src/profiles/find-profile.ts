import type { ProfileRecord, ProfileRepository } from "../ports.js";
import { isPrefixedId } from "../support/ids.js";

/**
 * The active profile with this public id in the organization, or null. An id that cannot be a
 * profile id is answered without asking storage, so no odd bytes reach a query.
 */
export async function findProfile(
  profiles: ProfileRepository,
  organizationId: string,
  profileId: string,
): Promise<ProfileRecord | null> {
  if (!isPrefixedId(profileId, "prf")) return null;
  return profiles.get(organizationId, profileId);
}
