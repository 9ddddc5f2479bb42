import type { ProviderReport } from "@tidings/core";
import type { InfobipDeliveryReport } from "./wire.js";

/**
 * What each status group of a delivery report means for the lifecycle: `null` for the groups
 * that change nothing yet (PENDING, ACCEPTED). An SMS via an operator that only acknowledges
 * (`DELIVERED_TO_OPERATOR`) is in the DELIVERED group and counts as delivered, as Infobip counts it.
 */
export const INFOBIP_GROUPS: Readonly<Record<string, ProviderReport | null>> = {
  ACCEPTED: null,
  PENDING: null,
  DELIVERED: "delivered",
  UNDELIVERABLE: "failed",
  REJECTED: "failed",
  EXPIRED: "expired",
};

/** The report a delivery report makes, or `null` when its group changes nothing (or is unknown). */
export function reportOf(report: InfobipDeliveryReport): ProviderReport | null {
  const group = report.status?.groupName ?? "";
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
