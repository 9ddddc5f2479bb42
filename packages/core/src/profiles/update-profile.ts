import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, validationError } from "../errors.js";
import type { ProfileRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { withinAttributeLimit } from "./attributes.js";
import { withFieldChanges } from "./changed-profile.js";
import { recordConsentChanges } from "./consent-history.js";
import { phoneTaken } from "./create-profile.js";
import { findProfile, profileNotFound } from "./find-profile.js";
import { type ProfileWithSuppressions, withSuppressed } from "./get-profile.js";
import { updateProfileInput } from "./profile-input.js";
import { checkModifiable } from "./protected-profile.js";

const MUTABLE: ReadonlyArray<keyof ProfileRecord> = [
  "phoneNumber",
  "email",
  "firstName",
  "lastName",
  "viberMarketingConsent",
  "smsMarketingConsent",
  "timeZone",
];

/**
 * Partially updates a profile (PATCH): omitted fields keep their values, `email` and names may
 * be cleared with null, attributes merge. `updated_at` moves only when something changed.
 */
export function updateProfile(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">,
  actor: Actor,
  profileId: string,
  input: unknown,
): ResultAsync<ProfileWithSuppressions, DomainError> {
  return useCase("updateProfile", async () => {
    const parsed = parseInput(updateProfileInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const patch = parsed.value;
    const written = await deps.storage.transaction(async (tx) => {
      const current = await findProfile(tx, actor.organizationId, profileId);
      if (!current) return err(profileNotFound(profileId));
      const modifiable = checkModifiable(current);
      if (modifiable.isErr()) return err(modifiable.error);

      const next: ProfileRecord = {
        ...withFieldChanges(current, patch),
        phoneNumber: patch.phone_number ?? current.phoneNumber,
      };
      if (!withinAttributeLimit(next.attributes)) {
        return err(
          validationError([
            { path: "attributes", message: "would have more than 50 keys.", rule: "max_keys" },
          ]),
        );
      }
      const changed =
        MUTABLE.some((field) => next[field] !== current[field]) ||
        JSON.stringify(next.attributes) !== JSON.stringify(current.attributes);
      if (!changed) return ok(current);

      next.updatedAt = isoAt(deps.clock.now());
      const updated = await tx.profiles.update(next);
      if (updated === "phone_number_taken") return err(phoneTaken(next.phoneNumber));
      if (!updated) return err(profileNotFound(profileId));
      await recordConsentChanges(tx, deps, actor, current, next);
      return ok(next);
    });
    if (written.isErr()) return err(written.error);
    const [view] = await withSuppressed(deps, actor.organizationId, [written.value], true);
    if (view === undefined) throw new Error("An updated profile's view went missing.");
    return ok(view);
  });
}
