import { type NotFoundError, notFound } from "../errors.js";
import type { ProfileRecord, Repositories } from "../ports.js";
import { isPrefixedId } from "../support/ids.js";

/** 404 for a profile the organization cannot see (malformed, unknown, deleted or another's). */
export const profileNotFound = (id: string): NotFoundError =>
  notFound("profile", id, "profile_not_found");

/**
 * The active profile with this public id in the organization, or null. An id that cannot be a
 * profile id is answered without asking storage, so no odd bytes reach a query.
 */
export async function findProfile(
  repositories: Pick<Repositories, "profiles">,
  organizationId: string,
  profileId: string,
): Promise<ProfileRecord | null> {
  if (!isPrefixedId(profileId, "prf")) return null;
  return repositories.profiles.get(organizationId, profileId);
}
