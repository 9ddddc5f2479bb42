import type { DeliveryRecord } from "../ports.js";

/** An ISO timestamp `ms` milliseconds after `iso`: a lease's end, an attempt's finish. */
export const isoPlus = (iso: string, ms: number): string =>
  new Date(Date.parse(iso) + ms).toISOString();

/**
 * Oldest due first, then by id: the order the port promises for claimed deliveries, which an
 * `UPDATE … RETURNING` does not keep on either database.
 */
export const byDue = (a: DeliveryRecord, b: DeliveryRecord): number =>
  a.nextAttemptAt < b.nextAttemptAt
    ? -1
    : a.nextAttemptAt > b.nextAttemptAt
      ? 1
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0;
