import type { Deps } from "../deps.js";
import { isoAt } from "../support/clock.js";
import { advanceMessage } from "./lifecycle.js";

/** How many messages one sweep expires at most. */
export const DEFAULT_EXPIRY_BATCH = 100;

/**
 * The expiry sweep the server runs: every message still `sent` at or past its `expiresAt`
 * (the campaign's TTL) becomes `expired` with a `message.expired` event. A message delivered
 * meanwhile is left alone. Returns how many expired, so the caller can sweep again at once
 * when a full batch came back.
 */
export async function expireMessages(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  limit = DEFAULT_EXPIRY_BATCH,
): Promise<number> {
  const due = await deps.storage.messages.listExpired(isoAt(deps.clock.now()), limit);
  let expired = 0;
  for (const messageId of due) {
    const outcome = await advanceMessage(deps, messageId, "expired");
    if (outcome.kind === "applied") expired += 1;
  }
  return expired;
}
