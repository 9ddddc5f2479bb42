import * as v from "valibot";
import { sendingWindowInput } from "../schedule/sending-window.js";
import { countryList } from "../settings/settings-input.js";
import { onlyParameters, pageParameters } from "../support/newest-first.js";
import { strictFields } from "../support/parse.js";
import { codePointLength, lengthBetween } from "../support/text.js";

/** Shortest and longest time a message may wait for delivery (30 s to 14 days). */
export const MIN_TTL_SECONDS = 30;
export const MAX_TTL_SECONDS = 1_209_600;
/** docs/decisions.md "Campaign template": the default TTL is one day. */
export const DEFAULT_TTL_SECONDS = 86_400;
/** A template longer than this is a mistake, not a message (long SMS are ~10 segments). */
export const MAX_TEMPLATE_LENGTH = 2_000;

const name = v.pipe(v.string("must be a string."), v.trim(), lengthBetween(1, 200));

const channel = v.picklist(["viber", "sms"], 'must be "viber" or "sms".');
const category = v.picklist(
  ["otp", "transactional", "promotional"],
  'must be "otp", "transactional" or "promotional".',
);

/** The sender's shape per channel is checked in `campaign-rules.ts`, which knows the channel. */
const sender = v.pipe(v.string("must be a string."), v.trim(), lengthBetween(1, 50));

const template = v.pipe(
  v.string("must be a string."),
  v.check((text) => text.trim() !== "", "must not be empty."),
  v.check(
    (text) => codePointLength(text) <= MAX_TEMPLATE_LENGTH,
    `must be at most ${MAX_TEMPLATE_LENGTH} characters long.`,
  ),
);

const ttlSeconds = v.pipe(
  v.number("must be a number."),
  v.integer("must be a whole number of seconds."),
  v.minValue(MIN_TTL_SECONDS, `must be at least ${MIN_TTL_SECONDS} seconds.`),
  v.maxValue(MAX_TTL_SECONDS, `must be at most ${MAX_TTL_SECONDS} seconds (14 days).`),
);

const smsFallback = v.boolean("must be true or false.");

/** Whether sends rewrite the template's http(s) URLs into tracked short links. */
const trackLinks = v.boolean("must be true or false.");

/** An SMS sender for a Viber campaign's fallback; its shape is checked with the SMS rules. */
const smsSender = v.nullable(sender);

/** A new API campaign (CMS side: the core API and the CLI, never `/v1`). */
export const createCampaignInput = strictFields(
  {
    name,
    channel,
    sms_fallback: v.optional(smsFallback),
    sms_sender: v.optional(smsSender),
    category,
    sender,
    template,
    ttl_seconds: v.optional(ttlSeconds),
    status: v.optional(v.picklist(["active", "inactive"], 'must be "active" or "inactive".')),
    track_links: v.optional(trackLinks),
    sending_window: v.optional(sendingWindowInput),
    allowed_countries: v.optional(v.nullable(countryList)),
  },
  "must be an object.",
);

/**
 * A change to a campaign. Channel and category change only while the campaign is inactive
 * (they decide which rules the template and params follow); the status moves with
 * activate/deactivate.
 */
export const updateCampaignInput = strictFields(
  {
    name: v.optional(name),
    channel: v.optional(channel),
    category: v.optional(category),
    sender: v.optional(sender),
    template: v.optional(template),
    ttl_seconds: v.optional(ttlSeconds),
    sms_fallback: v.optional(smsFallback),
    sms_sender: v.optional(smsSender),
    track_links: v.optional(trackLinks),
    sending_window: v.optional(sendingWindowInput),
    allowed_countries: v.optional(v.nullable(countryList)),
  },
  "must be an object.",
);

const LIST_PARAMETERS = ["status", "limit", "cursor"] as const;

/** GET /v1/campaigns query parameters. */
export const listCampaignsQuery = v.strictObject(
  {
    status: v.optional(v.picklist(["active", "inactive"], 'must be "active" or "inactive".')),
    ...pageParameters,
  },
  onlyParameters(LIST_PARAMETERS),
);
