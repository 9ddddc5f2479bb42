import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { existingSuppressionKey, phoneHash } from "../inbound/suppression-keys.js";
import type { ProfileRecord } from "../ports.js";
import { useCase } from "../support/result.js";
import { findProfile, profileNotFound } from "./find-profile.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

/** A profile as every profile answer shows it: with the channels that suppress its number. */
export type ProfileWithSuppressions = ProfileView & {
  suppressed: { viber: boolean; sms: boolean };
};

/**
 * The profiles' views with `suppressed`, in their order: one read of the suppressions of all
 * their numbers (none when the organization never suppressed anything). Outside any
 * transaction, after the write it shows. With `link` (after a create or an update), the
 * suppressions of a profile's number that name another profile, or none, are given this one:
 * a number suppressed before its profile came is then listed with it (`GET /v1/suppressions`).
 */
export async function withSuppressed(
  deps: Pick<Deps, "storage" | "secretBox">,
  organizationId: string,
  profiles: readonly ProfileRecord[],
  link = false,
): Promise<ProfileWithSuppressions[]> {
  const key =
    profiles.length === 0
      ? null
      : await existingSuppressionKey(deps.storage, deps.secretBox, organizationId);
  const hashes = key === null ? [] : profiles.map((p) => phoneHash(key, p.phoneNumber));
  const found =
    hashes.length === 0
      ? []
      : await deps.storage.suppressions.forNumbers(organizationId, [...new Set(hashes)]);
  const on = new Set(found.map((s) => `${s.channel}:${s.phoneHash}`));
  if (link) {
    for (const [i, profile] of profiles.entries()) {
      const unlinked = found
        .filter((s) => s.phoneHash === hashes[i] && s.profileId !== profile.id)
        .map((s) => s.id);
      if (unlinked.length > 0) {
        await deps.storage.suppressions.linkProfile(organizationId, unlinked, profile.id);
      }
    }
  }
  return profiles.map((profile, i) => {
    const hash = hashes[i];
    return {
      ...toProfileView(profile),
      suppressed: {
        viber: hash !== undefined && on.has(`viber:${hash}`),
        sms: hash !== undefined && on.has(`sms:${hash}`),
      },
    };
  });
}

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
    const [view] = await withSuppressed(deps, actor.organizationId, [profile]);
    if (view === undefined) throw new Error("A profile's view went missing.");
    return ok(view);
  });
}
