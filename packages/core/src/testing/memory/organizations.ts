import type { OrganizationRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assertNew, clone } from "./state.js";

/** Organizations in memory. */
export function memoryOrganizations(scope: MemoryScope): OrganizationRepository {
  return {
    insert: (org) =>
      scope.write("organizations.insert", (s) => {
        assertNew(s.organizations, org.id, "organization");
        s.organizations.set(org.id, clone(org));
      }),
    get: (id) => scope.read("organizations.get", (s) => s.organizations.get(id) ?? null),
  };
}
