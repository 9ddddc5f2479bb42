import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { findProfile, profileNotFound } from "./find-profile.js";
import { checkModifiable } from "./protected-profile.js";

/**
 * Soft-deletes a profile: it becomes inactive, leaves every contact list, disappears from every
 * read and recipient lookup, and its phone number is free again (docs/decisions.md "Soft delete").
 */
export function deleteProfile(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  profileId: string,
): ResultAsync<void, DomainError> {
  return useCase("deleteProfile", () =>
    deps.storage.transaction(async (tx) => {
      const current = await findProfile(tx, actor.organizationId, profileId);
      if (!current) return err(profileNotFound(profileId));
      const modifiable = checkModifiable(current);
      if (modifiable.isErr()) return err(modifiable.error);
      const deleted = await tx.profiles.softDelete(
        actor.organizationId,
        profileId,
        isoAt(deps.clock.now()),
      );
      if (!deleted) return err(profileNotFound(profileId));
      return ok(undefined);
    }),
  );
}
