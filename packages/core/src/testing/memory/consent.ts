import type { ConsentHistoryRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { appendNew, oldestFirst } from "./state.js";

/** Consent history in memory. */
export function memoryConsent(scope: MemoryScope): ConsentHistoryRepository {
  return {
    insert: (change) =>
      scope.write("consent.insert", (s) => appendNew(s.consentChanges, change, "consent change")),
    listForProfile: (organizationId, profileId) =>
      scope.read("consent.listForProfile", (s) =>
        oldestFirst(
          s.consentChanges.filter(
            (c) => c.organizationId === organizationId && c.profileId === profileId,
          ),
          (c) => c.changedAt,
          (c) => c.id,
        ),
      ),
  };
}
