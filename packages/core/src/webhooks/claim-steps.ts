import type {
  ClaimStep,
  CompletedAttempt,
  DeliveryRecord,
  DeliveryRepository,
  Repositories,
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
 * Records `attempts` (`completeAttempts`) and claims `steps` (`claimInSteps`), atomically, then
 * hands the claimed rows to `withClaimed` with repositories to read through: in one write where
 * the storage offers `recordAndClaim` (`withClaimed` then reads through the storage), otherwise
 * in a transaction, `withClaimed` inside it (where a recorded delivery due again at `now` may be
 * claimed at once; `recordAndClaim` leaves it to the next pass).
 */
export async function recordThenClaim<T>(
  storage: Storage,
  owner: string,
  attempts: readonly CompletedAttempt[],
  now: string,
  limit: number,
  leaseMs: number,
  steps: readonly ClaimStep[],
  withClaimed: (reads: Repositories, claimed: DeliveryRecord[]) => Promise<T>,
): Promise<{ recorded: boolean[]; claimed: T }> {
  if (storage.deliveries.recordAndClaim) {
    const written = await storage.deliveries.recordAndClaim(
      owner,
      attempts,
      now,
      limit,
      leaseMs,
      steps,
    );
    return { recorded: written.recorded, claimed: await withClaimed(storage, written.claimed) };
  }
  return storage.transaction(async (tx) => {
    const recorded =
      attempts.length === 0 ? [] : await tx.deliveries.completeAttempts(owner, attempts);
    const rows = await claimInSteps(tx.deliveries, now, limit, owner, leaseMs, steps);
    return { recorded, claimed: await withClaimed(tx, rows) };
  });
}
