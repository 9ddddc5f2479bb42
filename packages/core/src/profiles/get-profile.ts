import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { profileSuppressed } from "../inbound/suppressions.js";
import { useCase } from "../support/result.js";
import { findProfile, profileNotFound } from "./find-profile.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

/** One profile as `GET /v1/profiles/{id}` shows it: with the channels that suppress its number. */
export type ProfileWithSuppressions = ProfileView & {
  suppressed: { viber: boolean; sms: boolean };
};

/**
 * One active profile of the caller's organization, with `suppressed`: whether the number is
 * suppressed on each channel (consent may say true while a suppression still refuses sends).
 * Anything else is 404.
 */
export function getProfile(
  deps: Pick<Deps, "storage" | "secretBox">,
  actor: Actor,
  id: string,
): ResultAsync<ProfileWithSuppressions, DomainError> {
  return useCase("getProfile", async () => {
    const profile = await findProfile(deps.storage, actor.organizationId, id);
    if (profile === null) return err(profileNotFound(id));
    const suppressed = await profileSuppressed(deps, actor.organizationId, profile.phoneNumber);
    return ok({ ...toProfileView(profile), suppressed });
  });
}
