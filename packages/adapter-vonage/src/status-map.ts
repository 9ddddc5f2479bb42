import type { ProviderReport } from "@tidings/core";
import type { VonageError, VonageStatus } from "./wire.js";

/**
 * What each status of a status webhook means for the lifecycle (`null`: nothing yet). Vonage
 * uses `rejected` also when a message's TTL ran out; `reportOf` tells it apart where the error
 * says so.
 */
export const VONAGE_STATUSES: Readonly<Record<string, ProviderReport | null>> = {
  submitted: null,
  delivered: "delivered",
  read: "seen",
  rejected: "failed",
  undeliverable: "failed",
};

/** Whether an error says the message's time to live ran out. */
const expiredError = (error: VonageError | undefined): boolean =>
  /\b(ttl|time to live|expired?)\b/i.test(`${error?.title ?? ""} ${error?.detail ?? ""}`);

/** The report a status webhook makes, or `null` when it changes nothing (or is unknown). */
export function reportOf(status: VonageStatus): ProviderReport | null {
  const name = status.status ?? "";
  const report = Object.hasOwn(VONAGE_STATUSES, name) ? (VONAGE_STATUSES[name] ?? null) : null;
  return report === "failed" && name === "rejected" && expiredError(status.error)
    ? "expired"
    : report;
}

/** Vonage's own code of an error: the number its `type` URL ends with, else its title. */
export function providerCodeOf(error: VonageError | undefined): string | null {
  if (error === undefined) return null;
  const code = /#?(\d+)$/.exec(error.type ?? "")?.[1];
  return code ?? error.title ?? null;
}
