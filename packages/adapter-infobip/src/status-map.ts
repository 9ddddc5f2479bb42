import type { ProviderReport } from "@tidings/core";
import type { InfobipDeliveryReport } from "./wire.js";

/**
 * What each status group of a delivery report means for the lifecycle: `null` for the groups
 * that change nothing yet (PENDING, ACCEPTED). In the DELIVERED group only
 * `DELIVERED_TO_HANDSET` is delivered (see `reportOf`).
 */
export const INFOBIP_GROUPS: Readonly<Record<string, ProviderReport | null>> = {
  ACCEPTED: null,
  PENDING: null,
  DELIVERED: "delivered",
  UNDELIVERABLE: "failed",
  REJECTED: "failed",
  EXPIRED: "expired",
};

/** The one status of the DELIVERED group that says the handset has the message. */
export const DELIVERED_TO_HANDSET = "DELIVERED_TO_HANDSET";

/**
 * The refusal of a `messageId` Infobip already has, on an account with idempotent sending. Only a
 * retry of Tidings' reuses a leg's id, so such a report is about the retry and says the first try
 * got through: it changes nothing (the first try's own reports follow).
 */
export const REJECTED_DUPLICATE_MESSAGE_ID = "REJECTED_DUPLICATE_MESSAGE_ID";

/**
 * The report a delivery report makes, or `null` when it changes nothing (or is unknown).
 * `DELIVERED_TO_OPERATOR` is intermediate: the operator took the message, and a later report
 * may still say it failed.
 */
export function reportOf(report: InfobipDeliveryReport): ProviderReport | null {
  const group = report.status?.groupName ?? "";
  const name = report.status?.name ?? "";
  if (name === REJECTED_DUPLICATE_MESSAGE_ID) return null;
  if (group === "DELIVERED" && name !== DELIVERED_TO_HANDSET) return null;
  return Object.hasOwn(INFOBIP_GROUPS, group) ? (INFOBIP_GROUPS[group] ?? null) : null;
}

/** Infobip's own code: the error's name when the error is not `NO_ERROR` (id 0), else the status's. */
export function providerCodeOf(report: InfobipDeliveryReport): string | null {
  if (report.error?.id !== undefined && report.error.id !== 0 && report.error.name) {
    return report.error.name;
  }
  return report.status?.name ?? null;
}

/** The words Infobip gave for what happened. */
export const descriptionOf = (report: InfobipDeliveryReport): string | undefined =>
  report.error?.id ? report.error.description : report.status?.description;
