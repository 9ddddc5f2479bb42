import type { SettingsRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** Organization settings, the same SQL on both databases. */
export function settingsRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<SettingsRepository, A> {
  const settings = access.table("organizationSettings");
  return {
    get: (organizationId) => settings.one("organization_id = ?", [organizationId]),
    // Updated when there, else inserted; an insert that lost a race updates the winner's row.
    put: (record) =>
      access.inTurn(
        () => settings.update(record, "organization_id = ?", [record.organizationId]),
        () => settings.insertNew(record, "(organization_id)"),
        () => undefined,
      ),
  };
}
