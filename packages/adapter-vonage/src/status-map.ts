import type { ProviderReport } from "@tidings/core";
import type { VonageError, VonageStatus } from "./wire.js";

/**
 * What each status of a status webhook means for the lifecycle (`null`: nothing yet). Vonage
 * uses `rejected` also when a message's TTL ran out; `reportOf` tells it apart by the error's
 * code. `undeliverable` means Vonage could not reach the messaging provider (an outage on
 * Vonage's side), not a refusal by the recipient's network: the message fails all the same,
 * and `UNDELIVERABLE_DESCRIPTION` says so.
 */
export const VONAGE_STATUSES: Readonly<Record<string, ProviderReport | null>> = {
  submitted: null,
  delivered: "delivered",
  read: "seen",
  rejected: "failed",
  undeliverable: "failed",
};

/**
 * Vonage's code for "the TTL ran out before delivery". Matched on the code, never on words:
 * 1130 ("invalid TTL") is a refused request, not an expiry.
 */
export const TTL_EXPIRED = "1360";

/** The words a message failed `undeliverable` keeps: whose side the failure was on. */
export const UNDELIVERABLE_DESCRIPTION =
  "Vonage could not reach the messaging provider (an outage on Vonage's side, not a refusal by the recipient's network).";

/** The report a status webhook makes, or `null` when it changes nothing (or is unknown). */
export function reportOf(status: VonageStatus): ProviderReport | null {
  const name = status.status ?? "";
  const report = Object.hasOwn(VONAGE_STATUSES, name) ? (VONAGE_STATUSES[name] ?? null) : null;
  return report === "failed" && name === "rejected" && providerCodeOf(status.error) === TTL_EXPIRED
    ? "expired"
    : report;
}

/**
 * Vonage's own code of an error: the number its `type` URL ends with, else its title (a number
 * in status webhooks, a string in API answers).
 */
export function providerCodeOf(error: VonageError | undefined): string | null {
  if (error === undefined) return null;
  const code = /#?(\d+)$/.exec(error.type ?? "")?.[1];
  return code ?? (error.title === undefined ? null : String(error.title));
}
