/**
 * Room on each page of `deliveries` for a row's next version. A claim's lease changes only
 * `lease_owner` and `lease_expires_at`, which no index covers, so with room on the row's page
 * PostgreSQL writes that update as a heap-only tuple: no new entry in any of the table's nine
 * indexes, and the claim's partial indexes (`deliveries_due`, `deliveries_destination_due`)
 * keep one entry per pending row instead of one per lease. With every page packed full (the
 * default fillfactor of 100), each lease went to another page and rewrote every index. The
 * outcome of an attempt changes `status`, which the indexes do cover, so it is never
 * heap-only; it still lands on the same page when there is room. Existing pages keep their
 * rows: the setting applies to the pages written from now on, and no rewrite locks the table.
 */
export const deliveriesFillfactor: readonly string[] = [
  "ALTER TABLE deliveries SET (fillfactor = 60)",
];
