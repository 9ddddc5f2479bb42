/**
 * The operator API: what the delivery log shows of each delivery, a retry window that a
 * redelivery restarts, and indexes for the newest-first filters of messages, deliveries and
 * campaigns. Each list reads `ORDER BY seq DESC` within one organization, so each filter's
 * index ends in `seq` and a page is an index range read backwards, however many rows the
 * organization has.
 */
export const operatorApiSchema: readonly string[] = [
  `ALTER TABLE deliveries ADD COLUMN last_attempt_at TEXT COLLATE "C"`,
  `ALTER TABLE deliveries ADD COLUMN window_start_attempt INTEGER NOT NULL DEFAULT 0`,
  `UPDATE deliveries SET last_attempt_at =
     (SELECT MAX(started_at) FROM delivery_attempts a WHERE a.delivery_id = deliveries.id)
   WHERE attempts > 0`,

  `CREATE INDEX messages_organization ON messages (organization_id, seq)`,
  `CREATE INDEX messages_organization_status ON messages (organization_id, status, seq)`,
  `CREATE INDEX messages_organization_campaign ON messages (organization_id, campaign_id, seq)`,
  `CREATE INDEX messages_organization_reference ON messages (organization_id, client_reference, seq)
     WHERE client_reference IS NOT NULL`,
  `CREATE INDEX messages_organization_phone ON messages (organization_id, phone_number, seq)`,

  `CREATE INDEX deliveries_organization ON deliveries (organization_id, seq)`,
  `CREATE INDEX deliveries_organization_status ON deliveries (organization_id, status, seq)`,
  `CREATE INDEX deliveries_webhook ON deliveries (webhook_id, seq) WHERE webhook_id IS NOT NULL`,

  `CREATE INDEX campaigns_organization_seq ON campaigns (organization_id, seq)`,
];
