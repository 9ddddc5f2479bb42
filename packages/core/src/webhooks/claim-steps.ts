import type {
  ClaimStep,
  CompletedAttempt,
  DeliveryRecord,
  DeliveryRepository,
  Storage,
} from "../ports.js";

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

/**
 * Records `attempts` (`completeAttempts`) and claims `steps` (`claimInSteps`), atomically: in
 * one write where the storage offers `recordAndClaim`, otherwise in a transaction (where a
 * recorded delivery due again at `now` may be claimed at once; `recordAndClaim` leaves it to
 * the next pass).
 */
export async function recordThenClaim(
  storage: Pick<Storage, "deliveries" | "transaction">,
  owner: string,
  attempts: readonly CompletedAttempt[],
  now: string,
  limit: number,
  leaseMs: number,
  steps: readonly ClaimStep[],
): Promise<{ recorded: boolean[]; claimed: DeliveryRecord[] }> {
  if (storage.deliveries.recordAndClaim) {
    return storage.deliveries.recordAndClaim(owner, attempts, now, limit, leaseMs, steps);
  }
  return storage.transaction(async (tx) => ({
    recorded: attempts.length === 0 ? [] : await tx.deliveries.completeAttempts(owner, attempts),
    claimed: await claimInSteps(tx.deliveries, now, limit, owner, leaseMs, steps),
  }));
}
