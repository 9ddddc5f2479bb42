import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { ConflictError, DomainError } from "../errors.js";
import type { ProfileSource, Repositories } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { changesConsent, recordConsentChanges } from "./consent-history.js";
import { type ProfileWithSuppressions, withSuppressed } from "./get-profile.js";
import { newProfile } from "./new-profile.js";
import { createProfileInput } from "./profile-input.js";

export const phoneTaken = (phoneNumber: string): ConflictError => ({
  type: "conflict",
  code: "phone_number_taken",
  message: `Another profile already has the phone number ${phoneNumber}.`,
  issues: [
    { path: "phone_number", message: "is already used by another profile.", rule: "unique" },
  ],
});

/** Creates a profile (POST /v1/profiles); `source` is set by trusted callers such as imports. */
export function createProfile(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">,
  actor: Actor,
  input: unknown,
  options: { source?: ProfileSource | undefined } = {},
): ResultAsync<ProfileWithSuppressions, DomainError> {
  return useCase("createProfile", async () => {
    const parsed = parseInput(createProfileInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const body = parsed.value;
    const now = isoAt(deps.clock.now());
    const profile = newProfile(deps, actor.organizationId, body, options.source ?? "api", now);
    const create = async (repositories: Repositories) => {
      const inserted = await repositories.profiles.insert(profile);
      if (inserted === "phone_number_taken") return err(phoneTaken(body.phone_number));
      await recordConsentChanges(repositories, deps, actor, null, inserted);
      return ok(inserted);
    };
    // A profile created without consent is one row, whose insert is atomic on its own: no
    // transaction around it (on PostgreSQL, no BEGIN and COMMIT round trips).
    const created = changesConsent(null, profile)
      ? await deps.storage.transaction(create)
      : await create(deps.storage);
    if (created.isErr()) return err(created.error);
    const [view] = await withSuppressed(deps, actor.organizationId, [created.value], true);
    if (view === undefined) throw new Error("A created profile's view went missing.");
    return ok(view);
  });
}
