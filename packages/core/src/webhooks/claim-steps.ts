import type { ClaimStep, DeliveryRecord, DeliveryRepository } from "../ports.js";

/**
 * Claims `steps` in order, at most `limit` rows in all: in one call where the storage offers
 * `claimSteps`, otherwise one `claimDue` per step, each within what the steps before it left.
 */
export async function claimInSteps(
  deliveries: Pick<DeliveryRepository, "claimDue" | "claimSteps">,
  now: string,
  limit: number,
  owner: string,
  leaseMs: number,
  steps: readonly ClaimStep[],
): Promise<DeliveryRecord[]> {
  if (deliveries.claimSteps) return deliveries.claimSteps(now, limit, owner, leaseMs, steps);
  const rows: DeliveryRecord[] = [];
  for (const step of steps) {
    const room = Math.min(step.limit, limit - rows.length);
    if (room > 0) rows.push(...(await deliveries.claimDue(now, room, owner, leaseMs, step)));
  }
  return rows;
}
