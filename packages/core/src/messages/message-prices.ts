import type { Deps } from "../deps.js";
import type {
  Channel,
  MessagePriceRecord,
  MessageRecord,
  ReportedPrice,
  UpstreamReport,
} from "../ports.js";
import { destinationOf } from "../settings/destination.js";
import { isoAt } from "../support/clock.js";
import { legOf } from "./provider-legs.js";

/** Millionths in a unit: the precision a price is kept at. */
const MICROS = 1_000_000;

/** The largest price of one leg believed (a million of a currency's unit); above it, a typo. */
const MAX_MICROS = 1_000_000 * MICROS;

/** A decimal number as providers write prices: `0.15`, `"0.0333"`, Twilio's `"-0.00750"`. */
const DECIMAL = /^-?(\d{1,12})(?:\.(\d+))?$/;

/**
 * A reported price in millionths of its unit, made positive (Twilio writes a charge as a
 * negative amount), with its currency upper-cased; `null` when either is not what a provider
 * writes (the report is applied all the same, only without its price).
 */
export function priceOf(
  reported: ReportedPrice,
): { amountMicros: number; currency: string } | null {
  const { amount, currency } = reported;
  if (typeof currency !== "string" || !/^[A-Za-z]{3}$/.test(currency)) return null;
  let text: string;
  if (typeof amount === "number" && Number.isFinite(amount)) text = amount.toFixed(7);
  else if (typeof amount === "string") text = amount.trim();
  else return null;
  const parts = DECIMAL.exec(text);
  if (parts === null) return null;
  const fraction = (parts[2] ?? "").padEnd(7, "0");
  // Rounded half up at the seventh digit: a millionth is finer than any provider bills.
  const micros =
    Number(parts[1]) * MICROS + Number(fraction.slice(0, 6)) + (Number(fraction[6]) >= 5 ? 1 : 0);
  if (micros > MAX_MICROS) return null;
  return { amountMicros: micros, currency: currency.toUpperCase() };
}

/** An amount in millionths as the API shows it: a decimal string with at least 2 decimals. */
export function decimalOf(micros: number): string {
  const whole = Math.floor(micros / MICROS);
  const fraction = String(micros % MICROS)
    .padStart(6, "0")
    .replace(/0+$/, "");
  return `${whole}.${fraction.padEnd(2, "0")}`;
}

/** A message's cost as its view shows it. */
export interface MessagePriceView {
  /** A decimal string, e.g. `"0.0075"`. */
  amount: string;
  currency: string;
}

/** One leg's cost as a message's view lists it. */
export interface LegPriceView extends MessagePriceView {
  channel: Channel;
  provider: string;
}

/**
 * A message's price for its view: the legs' prices summed when they share one currency, else
 * (or when no leg reported one) `null`; and every leg's own, Viber first.
 */
export function priceViews(prices: readonly MessagePriceRecord[]): {
  price: MessagePriceView | null;
  prices: LegPriceView[];
} {
  const legs = [...prices].sort((a, b) =>
    a.channel === b.channel ? 0 : a.channel === "viber" ? -1 : 1,
  );
  const currencies = new Set(legs.map((leg) => leg.currency));
  const [currency] = currencies;
  return {
    price:
      currencies.size === 1 && currency !== undefined
        ? {
            amount: decimalOf(legs.reduce((sum, leg) => sum + leg.amountMicros, 0)),
            currency,
          }
        : null,
    prices: legs.map((leg) => ({
      channel: leg.channel,
      provider: leg.provider,
      amount: decimalOf(leg.amountMicros),
      currency: leg.currency,
    })),
  };
}

/** Whether a report is about the leg `message` has on the report's channel (any status). */
function sameLeg(
  message: MessageRecord,
  report: Pick<UpstreamReport, "channel" | "provider" | "providerMessageId">,
): boolean {
  const leg = legOf(message, report.channel);
  if (leg === null || leg.provider !== report.provider) return false;
  return (
    leg.providerMessageId === null ||
    report.providerMessageId === null ||
    leg.providerMessageId === report.providerMessageId
  );
}

/**
 * Keeps what a provider reported one leg of `message` cost, once per leg, and tells the host's
 * metrics when it was new. A leg that was given up (a Viber leg before its SMS fallback) still
 * cost what it cost, so its price is kept too; a report about another provider's leg is not.
 * Whether it stored the price.
 */
export async function recordLegPrice(
  deps: Pick<Deps, "storage" | "clock" | "telemetry">,
  message: MessageRecord,
  report: Pick<UpstreamReport, "channel" | "provider" | "providerMessageId" | "price">,
): Promise<boolean> {
  if (report.price === undefined || !sameLeg(message, report)) return false;
  const price = priceOf(report.price);
  if (price === null) return false;
  const country = destinationOf(message.phoneNumber)?.country ?? null;
  const stored = await deps.storage.messages.recordPrice({
    messageId: message.id,
    organizationId: message.organizationId,
    channel: report.channel,
    provider: report.provider,
    amountMicros: price.amountMicros,
    currency: price.currency,
    country,
    reportedAt: isoAt(deps.clock.now()),
  });
  if (stored) {
    deps.telemetry?.priceReported?.({
      provider: report.provider,
      currency: price.currency,
      country: country ?? "unknown",
      amount: price.amountMicros / MICROS,
    });
  }
  return stored;
}

/**
 * What a provider reported a leg cost, apart from any status report (Twilio's price, read from
 * its Message resource after the final status). Unknown message: `false`.
 */
export async function recordUpstreamPrice(
  deps: Pick<Deps, "storage" | "clock" | "telemetry">,
  report: Pick<UpstreamReport, "messageId" | "channel" | "provider" | "providerMessageId"> & {
    price: ReportedPrice;
  },
): Promise<boolean> {
  const message = await deps.storage.messages.getById(report.messageId);
  if (message === null) return false;
  return recordLegPrice(deps, message, report);
}
