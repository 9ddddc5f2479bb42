import type { DeliveryRecord } from "../ports.js";

/**
 * Whether a delivery is failing: still pending, attempted, and its last attempt did not answer
 * 2xx, so it is being retried (the `failing=true` filter, and the Overview's "retrying").
 */
export const isFailingDelivery = (
  delivery: Pick<DeliveryRecord, "status" | "attempts" | "lastStatusCode">,
): boolean =>
  delivery.status === "pending" &&
  delivery.attempts > 0 &&
  (delivery.lastStatusCode === null ||
    delivery.lastStatusCode < 200 ||
    delivery.lastStatusCode > 299);
