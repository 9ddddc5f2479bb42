import type { ConsentHistoryRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** The append-only history of consent flag changes. */
export function consentRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<ConsentHistoryRepository, A> {
  const changes = access.table("consentChanges");
  return {
    insert: (change) => changes.insert(change),
    listForProfile: (organizationId, profileId) =>
      changes.many("profile_id = ? AND organization_id = ? ORDER BY changed_at, id", [
        profileId,
        organizationId,
      ]),
  };
}
