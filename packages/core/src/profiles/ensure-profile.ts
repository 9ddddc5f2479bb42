import type { Actor, Deps } from "../deps.js";
import type { ProfileRecord, Repositories } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { newProfile } from "./new-profile.js";

/**
 * The active profile holding an (already normalized) E.164 number, created with defaults
 * (`source: "api"`, no consent) when there is none. Used for OTP and Transactional recipients.
 * Call inside a transaction: a concurrent creator of the same number makes the insert report
 * `phone_number_taken`, and the winner's profile is read back instead.
 */
export async function findOrCreateProfileByPhone(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  actor: Actor,
  phoneNumber: string,
): Promise<ProfileRecord> {
  const existing = await tx.profiles.findByPhone(actor.organizationId, phoneNumber);
  if (existing) return existing;
  return createProfileByPhone(tx, deps, actor, phoneNumber);
}

/**
 * `findOrCreateProfileByPhone` for a caller that has just found no profile holding the number:
 * the profile created, or the one a concurrent creator made first.
 */
export async function createProfileByPhone(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  actor: Actor,
  phoneNumber: string,
): Promise<ProfileRecord> {
  const now = isoAt(deps.clock.now());
  const inserted = await tx.profiles.insert(
    newProfile(deps, actor.organizationId, { phone_number: phoneNumber }, "api", now),
  );
  if (inserted !== "phone_number_taken") return inserted;
  const winner = await tx.profiles.findByPhone(actor.organizationId, phoneNumber);
  if (!winner) throw new Error(`profile for ${phoneNumber} vanished while it was being created`);
  return winner;
}
