import { ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { Channel, MessageStatus } from "../ports.js";
import { destinationOf } from "../settings/destination.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { decimalOf } from "./message-prices.js";
import { providerOf } from "./provider-legs.js";

const HOUR_MS = 60 * 60 * 1000;

/** How many messages sent in one UTC hour are in each status now. */
export interface HourlyMessageCounts {
  /** The hour as `YYYY-MM-DDTHH` (UTC). */
  hour: string;
  counts: Partial<Record<MessageStatus, number>>;
}

/**
 * The organization's messages of the last `hours` hours (24) by the UTC hour they were sent
 * and their status now, oldest hour first, every hour present (empty ones too).
 */
export function countRecentMessages(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  hours = 24,
): ResultAsync<HourlyMessageCounts[], DomainError> {
  return useCase("countRecentMessages", async () => {
    const now = deps.clock.now();
    const firstHour = Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
    const rows = await deps.storage.messages.countByHour(actor.organizationId, isoAt(firstHour));
    const buckets: HourlyMessageCounts[] = Array.from({ length: hours }, (_, i) => ({
      hour: isoAt(firstHour + i * HOUR_MS).slice(0, 13),
      counts: {},
    }));
    const byHour = new Map(buckets.map((bucket) => [bucket.hour, bucket]));
    for (const row of rows) {
      const bucket = byHour.get(row.hour);
      if (bucket) bucket.counts[row.status] = (bucket.counts[row.status] ?? 0) + row.count;
    }
    return ok(buckets);
  });
}

/** One channel's provider and what it carried in the last hour (the console's Overview). */
export interface ChannelActivity {
  channel: Channel;
  /** The provider that carries the channel now (`sandbox`, `twilio`, `infobip`, `vonage`). */
  provider: string;
  /** Messages created in the last hour that are on this channel now. */
  sends: number;
  /** Of those, the ones that failed. */
  failures: number;
}

/**
 * Each channel's provider with the organization's sends and failures of the last hour on it.
 * A Viber message that fell back to SMS counts on SMS, where it went.
 */
export function channelActivity(
  deps: Pick<Deps, "storage" | "clock" | "provider">,
  actor: Actor,
): ResultAsync<ChannelActivity[], DomainError> {
  return useCase("channelActivity", async () => {
    const since = isoAt(deps.clock.now() - HOUR_MS);
    const rows = await deps.storage.messages.countByChannel(actor.organizationId, since);
    return ok(
      (["viber", "sms"] as const).map((channel) => {
        const lines = rows.filter((row) => row.channel === channel);
        return {
          channel,
          provider: providerOf(deps.provider, channel),
          sends: lines.reduce((sum, row) => sum + row.count, 0),
          failures: lines
            .filter((row) => row.status === "failed")
            .reduce((sum, row) => sum + row.count, 0),
        };
      }),
    );
  });
}

/** One country's sends and spend over the last day (the console's Overview). */
export interface CountryActivity {
  /** ISO 3166-1 alpha-2, or `null` for numbers of no known country (and erased ones). */
  country: string | null;
  /** Messages created in the last 24 hours to numbers of the country. */
  sends: number;
  /** What the legs priced in the last 24 hours cost, by currency (decimal strings). */
  spend: Array<{ amount: string; currency: string }>;
}

/**
 * How many characters of a number its country is read from: `+` and 6 digits, enough for every
 * region sharing a calling code (the NANP's area codes, Guernsey's +44 7781), so the read groups
 * by prefix rather than by number.
 */
const COUNTRY_PREFIX = 7;

/**
 * The organization's sends and reported spend per recipient country over the last 24 hours,
 * the most sends first. The sends are counted by number prefix in the database and each
 * prefix's country read from one of its numbers, so the read stays one grouped query.
 */
export function countryActivity(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
): ResultAsync<CountryActivity[], DomainError> {
  return useCase("countryActivity", async () => {
    const since = isoAt(deps.clock.now() - 24 * HOUR_MS);
    const prefixes = await deps.storage.messages.countByPrefix(
      actor.organizationId,
      since,
      COUNTRY_PREFIX,
    );
    const spend = await deps.storage.messages.spendByCountry(actor.organizationId, since);
    const byCountry = new Map<string | null, CountryActivity>();
    const line = (country: string | null) => {
      let found = byCountry.get(country);
      if (found === undefined) {
        found = { country, sends: 0, spend: [] };
        byCountry.set(country, found);
      }
      return found;
    };
    for (const prefix of prefixes) {
      line(destinationOf(prefix.sample)?.country ?? null).sends += prefix.count;
    }
    for (const sum of [...spend].sort((a, b) => a.currency.localeCompare(b.currency))) {
      line(sum.country).spend.push({ amount: decimalOf(sum.amountMicros), currency: sum.currency });
    }
    return ok(
      [...byCountry.values()].sort(
        (a, b) => b.sends - a.sends || (a.country ?? "~").localeCompare(b.country ?? "~"),
      ),
    );
  });
}
