/**
 * What each leg of a message cost, as its provider reported it: one row per leg, the first
 * report with a price kept (a zero replaced by a later real one). Apart from `messages`, so a
 * send writes nothing more. The amount is in millionths of the currency's unit, so sums are
 * exact; the country is the recipient number's, for the console's spend per country, which
 * reads the organization's prices of the last day by `reported_at`. Retention deletes a
 * message's prices with it.
 */
export const messagePrices = /* sql */ `
CREATE TABLE message_prices (
  message_id TEXT NOT NULL REFERENCES messages (id),
  organization_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  provider TEXT NOT NULL,
  amount_micros INTEGER NOT NULL,
  currency TEXT NOT NULL,
  country TEXT,
  reported_at TEXT NOT NULL,
  PRIMARY KEY (message_id, channel)
) STRICT, WITHOUT ROWID;
CREATE INDEX message_prices_reported ON message_prices (organization_id, reported_at);
`;
