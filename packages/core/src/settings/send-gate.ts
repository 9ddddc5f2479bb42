import { err, ok, type Result } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError, ForbiddenError, RateLimitedError } from "../errors.js";
import type {
  CampaignRecord,
  DestinationCounter,
  OrganizationSettings,
  RateLimitDecision,
  SendRefusalReason,
} from "../ports.js";
import { findProfile } from "../profiles/find-profile.js";
import { normalizePhone } from "../profiles/phone.js";
import { sendRateLimitKey } from "../rate-limit/send-rate-limit.js";
import { type Destination, destinationOf } from "./destination.js";
import { numberHash } from "./number-hash.js";
import { readSettings } from "./settings.js";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A refusal with the reason its metric counts. */
type Refusal<E> = E & { reason: SendRefusalReason };

/**
 * Whether a message may go to `destination` at all: its country in the organization's list
 * (and the campaign's narrower one), its number type not blocked. Checked in memory.
 */
export function checkDestination(
  settings: Pick<OrganizationSettings, "allowedCountries" | "blockedNumberTypes">,
  campaign: Pick<CampaignRecord, "allowedCountries"> | null,
  destination: Destination,
): Result<void, Refusal<ForbiddenError>> {
  const lists = [settings.allowedCountries, campaign?.allowedCountries ?? null];
  for (const allowed of lists) {
    if (allowed === null) continue;
    if (destination.country === null || !allowed.includes(destination.country)) {
      return err({
        type: "forbidden",
        code: "recipient_country_not_allowed",
        reason: "country_not_allowed",
        message: `Messages to ${destination.country ?? "this number's country"} are not allowed: the ${
          allowed === settings.allowedCountries ? "organization's" : "campaign's"
        } allowed_countries does not list it.`,
      });
    }
  }
  if (destination.type !== null && settings.blockedNumberTypes.includes(destination.type)) {
    return err({
      type: "forbidden",
      code: "recipient_number_type_blocked",
      reason: "number_type_blocked",
      message: `The recipient is a ${destination.type} number, which the organization's blocked_number_types refuses.`,
    });
  }
  return ok(undefined);
}

/** The start of the UTC day after `now`, in ms. */
const nextUtcDay = (now: number): number => (Math.floor(now / DAY_MS) + 1) * DAY_MS;

/** A destination counter with what its refusal is called. */
interface Counted {
  counter: DestinationCounter;
  reason: "destination_limit" | "prefix_limit" | "country_limit";
}

/** The counters the organization's limits keep for a send to `destination` (none when off). */
export function destinationCounters(
  hashKey: Uint8Array | undefined,
  organizationId: string,
  settings: OrganizationSettings,
  destination: Destination,
  now: number,
): Counted[] {
  const counted: Counted[] = [];
  const { perHour, perDay } = settings.destinationLimits;
  const windows = [
    ...(perHour === null ? [] : [{ windowMs: HOUR_MS, limit: perHour }]),
    ...(perDay === null ? [] : [{ windowMs: DAY_MS, limit: perDay }]),
  ];
  if (windows.length > 0) {
    counted.push({
      counter: { key: `dst:n:${numberHash(hashKey, organizationId, destination.number)}`, windows },
      reason: "destination_limit",
    });
  }
  if (settings.prefixLimits.perHour !== null) {
    counted.push({
      counter: {
        key: `dst:p:${numberHash(hashKey, organizationId, destination.prefix)}`,
        windows: [{ windowMs: HOUR_MS, limit: settings.prefixLimits.perHour }],
      },
      reason: "prefix_limit",
    });
  }
  const daily =
    destination.country === null ? undefined : settings.countryDailyLimits[destination.country];
  if (daily !== undefined && destination.country !== null) {
    counted.push({
      counter: {
        key: `dst:c:${organizationId}:${destination.country}`,
        total: { limit: daily, until: nextUtcDay(now) },
      },
      reason: "country_limit",
    });
  }
  return counted;
}

/** The 429 of a full destination counter. */
function limitReached(reason: Counted["reason"], resetMs: number): Refusal<RateLimitedError> {
  const wait = Math.max(1, Math.ceil(resetMs / 1000));
  const after = `Retry after ${wait} second${wait === 1 ? "" : "s"}.`;
  if (reason === "country_limit") {
    return {
      type: "rate_limited",
      code: "country_limit_reached",
      reason,
      message: `The organization's daily limit of messages to this country is reached. ${after}`,
      retryAfterSeconds: wait,
    };
  }
  return {
    type: "rate_limited",
    code: "destination_rate_limited",
    reason,
    message: `Too many messages to this ${
      reason === "prefix_limit" ? "number's range" : "number"
    } for the organization's limits. ${after}`,
    retryAfterSeconds: wait,
  };
}

/** What the gate decided before a send. */
export type Admission =
  /**
   * The key's rate-limit decision, and a refusal to answer instead of sending when it allows;
   * with the campaign the gate read for the send's checks (absent when it read none), so the
   * send need not read it again.
   */
  | { decision: RateLimitDecision; refusal: DomainError | null; campaign?: CampaignRecord | null }
  /** A destination limit refused: nothing was counted. */
  | { decision: null; refusal: DomainError };

/** The recipient number of a send body, when it names one and it reads as a number. */
function recipientNumber(input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const recipient = (input as { recipient?: unknown }).recipient;
  if (typeof recipient !== "object" || recipient === null) return null;
  const { type, value } = recipient as { type?: unknown; value?: unknown };
  if (type !== "phone_number" || typeof value !== "string") return null;
  const normalized = normalizePhone(value);
  return normalized.isOk() ? normalized.value : null;
}

/** Whether any of the organization's per-destination limits is on. */
const limitsOn = (settings: OrganizationSettings): boolean =>
  settings.destinationLimits.perHour !== null ||
  settings.destinationLimits.perDay !== null ||
  settings.prefixLimits.perHour !== null ||
  Object.keys(settings.countryDailyLimits).length > 0;

/**
 * The number of the profile a send names by `email` or `public_id`, so its limits count the
 * number as if it were given: read only while a limit is on (one indexed read), and `null` when
 * no single active profile matches (the send then answers 404 or 409 as it would).
 */
async function profileNumber(
  deps: Pick<Deps, "storage">,
  organizationId: string,
  input: unknown,
): Promise<string | null> {
  if (typeof input !== "object" || input === null) return null;
  const recipient = (input as { recipient?: unknown }).recipient;
  if (typeof recipient !== "object" || recipient === null) return null;
  const { type, value } = recipient as { type?: unknown; value?: unknown };
  if (typeof value !== "string" || value.length > 320) return null;
  if (!limitsOn(await readSettings(deps.storage, organizationId))) return null;
  let profile: { phoneNumber: string } | null = null;
  if (type === "public_id") {
    profile = await findProfile(deps.storage, organizationId, value);
  } else if (type === "email") {
    const matches = await deps.storage.profiles.findByEmail(organizationId, value.trim(), 2);
    profile = matches.length === 1 ? (matches[0] ?? null) : null;
  }
  return profile === null || profile.phoneNumber === "" ? null : profile.phoneNumber;
}

/** The campaign a send body names, when it is the organization's. */
async function namedCampaign(
  deps: Pick<Deps, "storage">,
  organizationId: string,
  input: unknown,
): Promise<CampaignRecord | null> {
  const id = (input as { campaign_id?: unknown }).campaign_id;
  if (typeof id !== "string" || !/^cmp_[0-9a-z]{26}$/.test(id)) return null;
  return deps.storage.campaigns.get(organizationId, id);
}

/**
 * A send's gate, before anything else: the key's rate limit and, for a send to a phone number
 * (or, while a limit is on, to a profile by e-mail or public id, whose number is read first),
 * the organization's abuse protection. The country and number type are checked in memory; the
 * per-destination limits are counted with the key's hit in one storage call (one statement on
 * PostgreSQL), so a send costs no more round trips with them on. A destination limit that
 * refuses counts nothing, not even the key's hit; a send the key's limit refuses counts no
 * destination. Every other request is counted on the key alone, as before: a 400 counts.
 */
export async function admitSend(
  deps: Pick<Deps, "storage" | "clock" | "config" | "numberHashKey" | "telemetry">,
  actor: Actor & { apiKeyId: string },
  input: unknown,
): Promise<Admission> {
  const now = deps.clock.now();
  const key = {
    key: sendRateLimitKey(actor.apiKeyId),
    windowMs: deps.config.sendRateWindowMs,
    limit: deps.config.sendRateLimit,
  };
  const keyOnly = async (
    refusal: DomainError | null,
  ): Promise<{ decision: RateLimitDecision; refusal: DomainError | null }> => ({
    decision: await deps.storage.rateLimits.hit(key.key, now, key.windowMs, key.limit),
    refusal,
  });
  const number = recipientNumber(input) ?? (await profileNumber(deps, actor.organizationId, input));
  const destination = number === null ? null : destinationOf(number);
  if (destination === null) return keyOnly(null);
  const settings = await readSettings(deps.storage, actor.organizationId);
  const campaign = await namedCampaign(deps, actor.organizationId, input);
  const checked = checkDestination(settings, campaign, destination);
  if (checked.isErr()) {
    const admission = await keyOnly(checked.error);
    if (admission.decision?.allowed) deps.telemetry?.sendRefused?.(checked.error.reason);
    return admission;
  }
  const counted = destinationCounters(
    deps.numberHashKey,
    actor.organizationId,
    settings,
    destination,
    now,
  );
  if (counted.length === 0) return { ...(await keyOnly(null)), campaign };
  const decided = await deps.storage.rateLimits.hitSend({
    now,
    key,
    destinations: counted.map((c) => c.counter),
  });
  if (decided.refusedBy === null) return { decision: decided.key, refusal: null, campaign };
  const reason = counted[decided.refusedBy]?.reason ?? "destination_limit";
  deps.telemetry?.sendRefused?.(reason);
  return { decision: null, refusal: limitReached(reason, decided.resetMs) };
}
