/**
 * What each leg of a message cost, as its provider reported it: one row per leg, the first
 * report with a price kept (a zero replaced by a later real one). Apart from `messages`, so a
 * send writes nothing more. The amount is in millionths of the currency's unit, so sums are
 * exact; the country is the recipient number's, for the console's spend per country, which
 * reads the organization's prices of the last day by `reported_at`. Retention deletes a
 * message's prices with it.
 */
export const messagePrices: readonly string[] = [
  `CREATE TABLE message_prices (
    message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id),
    organization_id TEXT COLLATE "C" NOT NULL,
    channel TEXT COLLATE "C" NOT NULL,
    provider TEXT COLLATE "C" NOT NULL,
    amount_micros BIGINT NOT NULL,
    currency TEXT COLLATE "C" NOT NULL,
    country TEXT COLLATE "C",
    reported_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (message_id, channel)
  )`,
  "CREATE INDEX message_prices_reported ON message_prices (organization_id, reported_at)",
];
