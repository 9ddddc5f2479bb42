import type { ProviderReport } from "@tidings/core";

/**
 * What each `MessageStatus` of a status callback means for the lifecycle: `null` for the
 * intermediate ones, which change nothing. Twilio SMS has no `read` (WhatsApp and RCS only), so
 * `seen` never comes from it; `canceled` only ends a scheduled message, which Tidings never sends.
 */
export const TWILIO_STATUSES: Readonly<Record<string, ProviderReport | null>> = {
  accepted: null,
  scheduled: null,
  queued: null,
  sending: null,
  sent: null,
  receiving: null,
  received: null,
  partially_delivered: null,
  delivered: "delivered",
  read: "seen",
  undelivered: "failed",
  failed: "failed",
  canceled: "failed",
};

/** Error 30036: the validity period ended while the message waited in Twilio's queue. */
export const VALIDITY_EXPIRED = "30036";

/** The report a callback makes, or `null` when its status changes nothing (or is unknown). */
export function reportOf(status: string, errorCode: string | null): ProviderReport | null {
  const report = Object.hasOwn(TWILIO_STATUSES, status) ? (TWILIO_STATUSES[status] ?? null) : null;
  return report === "failed" && errorCode === VALIDITY_EXPIRED ? "expired" : report;
}
