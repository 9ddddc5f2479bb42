import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, notFound } from "../errors.js";
import { useCase } from "../support/result.js";
import { findProfile } from "./find-profile.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

/** One active profile of the caller's organization; anything else is 404. */
export function getProfile(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  profileId: string,
): ResultAsync<ProfileView, DomainError> {
  return useCase("getProfile", async () => {
    const profile = await findProfile(deps.storage.profiles, actor.organizationId, profileId);
    if (!profile) return err(notFound("profile", profileId, "profile_not_found"));
    return ok(toProfileView(profile));
  });
}
