import type { OrganizationRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** Organizations, the same SQL on both databases. */
export function organizationRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<OrganizationRepository, A> {
  const organizations = access.table("organizations");
  return {
    insert: (organization) => organizations.insert(organization),
    get: (id) => organizations.one("id = ?", [id]),
    list: () => organizations.many("TRUE ORDER BY created_at, id", []),
  };
}
