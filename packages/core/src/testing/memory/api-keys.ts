import type { ApiKeyRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { ofOrganization, storeNew } from "./state.js";

/** API keys in memory. */
export function memoryApiKeys(scope: MemoryScope): ApiKeyRepository {
  return {
    insert: (key) =>
      scope.write("apiKeys.insert", (s) => storeNew(s.apiKeys, key.id, key, "api key")),
    get: (id) => scope.read("apiKeys.get", (s) => s.apiKeys.get(id) ?? null),
    list: (organizationId) =>
      scope.read("apiKeys.list", (s) => ofOrganization(s.apiKeys.values(), organizationId)),
    revoke: (id, at) =>
      scope.write("apiKeys.revoke", (s) => {
        const stored = s.apiKeys.get(id);
        if (stored === undefined || stored.revokedAt !== null) return false;
        s.apiKeys.set(id, { ...stored, revokedAt: at });
        return true;
      }),
  };
}
