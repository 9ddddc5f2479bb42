import type { ApiKeyRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assertNew, clone, oldestFirst } from "./state.js";

/** API keys in memory. */
export function memoryApiKeys(scope: MemoryScope): ApiKeyRepository {
  return {
    insert: (key) =>
      scope.write("apiKeys.insert", (s) => {
        assertNew(s.apiKeys, key.id, "api key");
        s.apiKeys.set(key.id, clone(key));
      }),
    get: (id) => scope.read("apiKeys.get", (s) => s.apiKeys.get(id) ?? null),
    list: (organizationId) =>
      scope.read("apiKeys.list", (s) =>
        oldestFirst(
          [...s.apiKeys.values()].filter((k) => k.organizationId === organizationId),
          (k) => k.createdAt,
          (k) => k.id,
        ),
      ),
    revoke: (id, at) =>
      scope.write("apiKeys.revoke", (s) => {
        const stored = s.apiKeys.get(id);
        if (stored === undefined || stored.revokedAt !== null) return false;
        s.apiKeys.set(id, { ...stored, revokedAt: at });
        return true;
      }),
  };
}
