import type { OrganizationRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { storeNew } from "./state.js";

/** Organizations in memory. */
export function memoryOrganizations(scope: MemoryScope): OrganizationRepository {
  return {
    insert: (org) =>
      scope.write("organizations.insert", (s) =>
        storeNew(s.organizations, org.id, org, "organization"),
      ),
    get: (id) => scope.read("organizations.get", (s) => s.organizations.get(id) ?? null),
    list: () =>
      scope.read("organizations.list", (s) =>
        [...s.organizations.values()].sort(
          (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
        ),
      ),
  };
}
