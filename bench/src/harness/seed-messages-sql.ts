import { createIds, isoAt } from "@tidings/core";
import Database from "better-sqlite3";
import { phoneNumber } from "./phones.js";

/** What `seedMessagesSql` stored, for the requests of a run. */
export interface SeededMessages {
  /** Every 1,000th message id. */
  ids: string[];
  /** The client reference of message `i`. */
  reference(i: number): string;
}

/**
 * Writes `count` delivered messages of one campaign, each with its `message.sent` event,
 * straight into the SQLite file in one transaction, bypassing the API. Message `i` goes to phone
 * number `i % 10,000` and carries the client reference `order-i`, as a shop's would. Delivered,
 * so the server's expiry sweep has nothing to do: it would otherwise be what is measured.
 */
export function seedMessagesSql(
  path: string,
  organizationId: string,
  campaignId: string,
  count: number,
): SeededMessages {
  const db = new Database(path);
  const ids = createIds();
  const sample: string[] = [];
  try {
    const message = db.prepare(
      `INSERT INTO messages (id, organization_id, api_key_id, campaign_id, profile_id,
         phone_number, category, channel, sms_fallback_allowed, sender, body, client_reference,
         webhook_url, status, error, expires_at, created_at, updated_at)
       VALUES (?, ?, 'key_bench', ?, 'prf_bench', ?, 'otp', 'viber', 0, 'Bench', 'Your code',
         ?, NULL, 'delivered', NULL, ?, ?, ?)`,
    );
    const event = db.prepare(
      `INSERT INTO message_events (id, organization_id, message_id, topic, channel, error,
         created_at) VALUES (?, ?, ?, 'message.sent', 'viber', NULL, ?)`,
    );
    const start = Date.now() - count;
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = ids.uuidv7();
        if (i % 1000 === 0) sample.push(id);
        const at = isoAt(start + i);
        const expires = isoAt(start + i + 86_400_000);
        message.run(
          id,
          organizationId,
          campaignId,
          phoneNumber(i % 10_000),
          `order-${i}`,
          expires,
          at,
          at,
        );
        event.run(ids.uuidv7(), organizationId, id, at);
      }
    })();
    db.pragma("optimize");
  } finally {
    db.close();
  }
  return { ids: sample, reference: (i) => `order-${i}` };
}
