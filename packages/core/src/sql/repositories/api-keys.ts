import type { ApiKeyRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** API keys; looked up by id alone when authenticating. */
export function apiKeyRepository<A extends boolean>({
  access,
}: {
  access: SqlAccess<A>;
}): Styled<ApiKeyRepository, A> {
  const keys = access.table("apiKeys");
  return {
    insert: (key) => keys.insert(key),
    get: (id) => keys.one("id = ?", [id]),
    list: (organizationId) =>
      keys.many("organization_id = ? ORDER BY created_at, id", [organizationId]),
    revoke: (id, at) =>
      access.map(
        keys.update({ revokedAt: at }, "id = ? AND revoked_at IS NULL", [id]),
        (revoked) => revoked === 1,
      ),
  };
}
