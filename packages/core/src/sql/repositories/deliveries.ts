import type { DeliveryRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** The reads of deliveries and their attempt log, the same SQL on both databases. */
export function deliveryReads<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Pick<DeliveryRepository, "get" | "listForMessage" | "listPage" | "listAttempts">, A> {
  const deliveries = access.table("deliveries");
  const attempts = access.table("deliveryAttempts");
  return {
    get: (organizationId, id) =>
      deliveries.one("id = ? AND organization_id = ?", [id, organizationId]),
    listForMessage: (organizationId, messageId) =>
      deliveries.many("message_id = ? AND organization_id = ? ORDER BY created_at, id", [
        messageId,
        organizationId,
      ]),
    listPage: (query) => access.page("deliveries", query),
    listAttempts: (organizationId, deliveryId) =>
      attempts.many("delivery_id = ? AND organization_id = ? ORDER BY attempt, seq", [
        deliveryId,
        organizationId,
      ]),
  };
}
