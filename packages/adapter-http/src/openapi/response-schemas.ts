import { MESSAGE_TOPICS, NUMBER_TYPES, TOPICS, WEEKDAYS } from "@tidings/core";

/**
 * The response schemas of the OpenAPI document, written by hand: requests are validated by
 * valibot and converted, but answers are built by the core's view functions, so their shape
 * is stated here once and every in-process test checks real answers against it. Objects are
 * closed (`additionalProperties: false`) so a leaked internal field fails those checks.
 */

type JsonSchema = Record<string, unknown>;

const timestamp: JsonSchema = { type: "string", format: "date-time" };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });
const closed = (
  properties: Record<string, JsonSchema>,
  description: string,
  example?: Record<string, unknown>,
): JsonSchema => ({
  type: "object",
  description,
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...(example ? { examples: [example] } : {}),
});
/** A string enum, typed so client generators make a union of literals. */
const oneOf = (values: readonly string[]): JsonSchema => ({ type: "string", enum: [...values] });

const profileProperties: Record<string, JsonSchema> = {
  public_id: { type: "string", pattern: "^prf_[0-9a-z]{26}$" },
  phone_number: { type: "string", pattern: "^\\+[1-9][0-9]{1,14}$", description: "E.164." },
  email: nullable({ type: "string" }),
  first_name: nullable({ type: "string" }),
  last_name: nullable({ type: "string" }),
  full_name: nullable({ type: "string" }),
  viber_marketing_consent: { type: "boolean" },
  sms_marketing_consent: { type: "boolean" },
  attributes: {
    type: "object",
    additionalProperties: { type: ["string", "number", "boolean"] },
  },
  source: oneOf(["api", "import", "shopify", "woocommerce"]),
  time_zone: nullable({
    type: "string",
    description:
      "The recipient's IANA time zone (Europe/Paris), which sending windows are read in; " +
      "null: the zones of the number's prefix.",
  }),
  created_at: timestamp,
  updated_at: timestamp,
};

const webhookProperties: Record<string, JsonSchema> = {
  webhook_id: { type: "string", pattern: "^whk_[0-9a-z]{26}$" },
  url: { type: "string" },
  topics: { type: "array", items: oneOf(TOPICS), minItems: 1 },
  status: oneOf(["active", "inactive"]),
  description: nullable({ type: "string" }),
  disabled_reason: nullable({
    ...oneOf(["failing"]),
    description:
      "failing: turned off by Tidings after its deliveries kept failing with no success " +
      "(TIDINGS_WEBHOOK_DISABLE_AFTER_MS, 5 days); null otherwise. Set status active to clear it.",
  }),
  created_at: timestamp,
  updated_at: timestamp,
};

const webhookExample = {
  webhook_id: "whk_01jd3v6k8x2m4n5p6q7r8s9t0v",
  url: "https://example.com/hooks/tidings",
  topics: ["message.delivered", "message.failed"],
  status: "active",
  description: "Delivery reports",
  disabled_reason: null,
  created_at: "2026-11-23T09:30:00.000Z",
  updated_at: "2026-11-23T09:30:00.000Z",
};

const messageError = nullable(
  closed(
    {
      code: {
        type: "string",
        description:
          "Stable code: upstream_rejected (refused at send), upstream_failed (reported failed " +
          "later), upstream_unavailable (unreachable, timed out, 5xx), upstream_unauthorized " +
          "(credentials refused), not_on_viber, and others.",
      },
      message: { type: "string" },
      provider: nullable({
        type: "string",
        description:
          "The provider of the leg that failed: sandbox, twilio, infobip, vonage or telnyx.",
      }),
      provider_code: nullable({
        type: "string",
        description: "The provider's own code for the failure (Twilio 21211), as a string.",
      }),
    },
    "Why the message failed; null unless it did.",
  ),
);

const campaignProperties: Record<string, JsonSchema> = {
  campaign_id: { type: "string", pattern: "^cmp_[0-9a-z]{26}$" },
  name: { type: "string" },
  channel: oneOf(["viber", "sms"]),
  sms_fallback: { type: "boolean" },
  sms_sender: nullable({
    type: "string",
    description:
      "Viber campaigns: the sender of the SMS a fallback sends; null: the campaign's sender.",
  }),
  track_links: {
    type: "boolean",
    description:
      "Whether sends replace the template's http(s) URLs with tracked short links ({link base}/l/{code}).",
  },
  allowed_countries: nullable({
    type: "array",
    items: { type: "string", pattern: "^[A-Z]{2}$" },
    description:
      "Countries (ISO 3166-1 alpha-2) this campaign may send to, within the organization's allowed_countries; null: the organization's.",
  }),
  category: oneOf(["otp", "transactional", "promotional"]),
  sender: { type: "string" },
  template: { type: "string" },
  ttl_seconds: { type: "integer", minimum: 30, maximum: 1_209_600 },
  status: oneOf(["active", "inactive"]),
  sending_window: nullable(
    closed(
      {
        days: { type: "array", items: oneOf(WEEKDAYS), minItems: 1 },
        start: { type: "string", pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$" },
        end: { type: "string", pattern: "^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$" },
        skip_public_holidays: { type: "boolean" },
      },
      "When the campaign's messages may reach a recipient, in the recipient's local time " +
        "(every zone their number may be in); null: any time.",
    ),
  ),
  created_at: timestamp,
  updated_at: timestamp,
};

const MESSAGE_STATUSES = [
  "scheduled",
  "releasing",
  "sent",
  "delivered",
  "seen",
  "clicked",
  "failed",
  "expired",
  "cancelled",
];

const priceProperties: Record<string, JsonSchema> = {
  amount: {
    type: "string",
    pattern: "^[0-9]+\\.[0-9]{2,6}$",
    description: "A decimal amount, never negative (Twilio's negative charges are made positive).",
  },
  currency: { type: "string", pattern: "^[A-Z]{3}$", description: "ISO 4217." },
};

const messageProperties: Record<string, JsonSchema> = {
  message_id: { type: "string", format: "uuid" },
  campaign_id: { type: "string" },
  category: oneOf(["otp", "transactional", "promotional"]),
  channel: { ...oneOf(["viber", "sms"]), description: "The channel that carries the message." },
  status: oneOf(MESSAGE_STATUSES),
  recipient: closed(
    {
      public_id: { type: "string" },
      phone_number: nullable({
        type: "string",
        description: "null once the recipient was erased.",
      }),
    },
    "The profile the message went to.",
  ),
  client_reference: nullable({ type: "string" }),
  webhook_url: nullable({
    type: "string",
    description: "The message's own webhook URL: scheme, host and path only.",
  }),
  error: messageError,
  provider: nullable({
    type: "string",
    description:
      "The provider carrying the message's current leg: sandbox, twilio, infobip, vonage or telnyx.",
  }),
  provider_message_id: nullable({
    type: "string",
    description:
      "The provider's id of the current leg (a Twilio SM… sid, the Vonage message_uuid), null until it gave one; always null on the sandbox.",
  }),
  tried_before: {
    type: "array",
    description:
      "The providers of the channel's failover list (TIDINGS_PROVIDER_SMS=twilio,vonage) tried before `provider` on the current leg, in order, and why each did not carry it; empty when the first one did.",
    items: closed(
      {
        provider: { type: "string", description: "A provider name: twilio, infobip, vonage…" },
        outcome: {
          ...oneOf(["unreachable", "circuit_open", "unauthorized", "rate_limited", "unavailable"]),
          description:
            "unreachable: the request never reached it (DNS, connection refused, TLS); circuit_open: it failed repeatedly and sends to it were paused; unauthorized: it refused the credentials (401/403); rate_limited: 429 or a full queue; unavailable: it timed out or answered 5xx and may have taken the message (failed over only with TIDINGS_FAILOVER_ON_TIMEOUT=1).",
        },
      },
      "A provider that was tried and did not carry the message.",
    ),
  },
  provider_ttl_seconds: nullable({
    type: "integer",
    minimum: 1,
    description:
      "The TTL in seconds the current leg's provider was given when it clamped the asked one to its range (Infobip at most 48 hours; Vonage Viber 30 to 259,200 seconds); null when it took the TTL as asked.",
  }),
  links: {
    type: "array",
    description: "The message's tracked links, in the order of its text; empty when none.",
    items: closed(
      {
        url: { type: "string", description: "The short link the message carried." },
        original_url: {
          type: "string",
          description: "The URL it stands for: scheme, host and path only.",
        },
        clicks: {
          type: "integer",
          minimum: 0,
          description: "Counted clicks (not HEAD requests, not link-preview fetchers).",
        },
        first_clicked_at: nullable(timestamp),
        last_clicked_at: nullable(timestamp),
      },
      "A tracked link of the message.",
    ),
  },
  price: nullable(
    closed(
      priceProperties,
      "What the message cost as its providers reported it (Vonage and Infobip in their " +
        "reports, Twilio with TIDINGS_TWILIO_FETCH_PRICE=1): its legs summed when they share " +
        "one currency; null when no leg reported a price or they are in several currencies.",
    ),
  ),
  prices: {
    type: "array",
    description: "Each leg's reported price, Viber first; empty when none.",
    items: closed(
      {
        channel: oneOf(["viber", "sms"]),
        provider: { type: "string" },
        ...priceProperties,
      },
      "What one leg cost.",
    ),
  },
  scheduled_for: nullable({
    ...timestamp,
    description:
      "When a message held for its campaign's sending window or its send_at is (or was) " +
      "released; null for a message sent at its request.",
  }),
  expires_at: timestamp,
  created_at: timestamp,
  updated_at: timestamp,
};

const messageEvent = closed(
  {
    event_id: { type: "string", format: "uuid" },
    topic: oneOf(MESSAGE_TOPICS),
    channel: oneOf(["viber", "sms"]),
    error: messageError,
    created_at: timestamp,
  },
  "One lifecycle event.",
);

const exportedProfile = closed(
  {
    ...profileProperties,
    phone_number: nullable({ type: "string", description: "E.164; null once erased." }),
    status: oneOf(["active", "inactive"]),
    deleted_at: nullable(timestamp),
    erased: { type: "boolean" },
  },
  "A profile as an export shows it, deleted and erased ones included.",
);

/** The kinds an erasure counts, in the order it answers them. */
const ERASED_KINDS = [
  "profiles",
  "messages",
  "message_events",
  "links",
  "webhook_deliveries",
  "delivery_attempts",
  "idempotency_records",
  "inbound_messages",
  "suppression_notes",
];

const deliveryProperties: Record<string, JsonSchema> = {
  delivery_id: { type: "string", format: "uuid", description: "The X-Service-Delivery-Id." },
  webhook_id: nullable({
    type: "string",
    description: "null for a message's own webhook_url.",
  }),
  url: nullable({
    type: "string",
    description:
      "Scheme, host and path only (never the query string); null when the subscription was deleted.",
  }),
  topic: { type: "string" },
  message_id: nullable({ type: "string", format: "uuid" }),
  status: oneOf(["pending", "succeeded", "failed", "cancelled"]),
  attempt_count: { type: "integer", minimum: 0 },
  last_status_code: nullable({ type: "integer" }),
  last_attempt_at: nullable(timestamp),
  next_attempt_at: nullable({ ...timestamp, description: "Set while pending." }),
  created_at: timestamp,
  updated_at: timestamp,
};

const deliveryAttempt = closed(
  {
    attempt: {
      type: "integer",
      minimum: 0,
      description: "The X-Service-Retry-Attempt that was sent; 0 first.",
    },
    started_at: timestamp,
    duration_ms: { type: "number", minimum: 0 },
    status_code: nullable({ type: "integer" }),
    error: nullable({ type: "string" }),
    response_body: nullable({
      type: "string",
      description: "The receiver's answer, cut to 2 KiB.",
    }),
  },
  "One attempt.",
);

const listMeta = (description: string): JsonSchema =>
  closed({ has_more: { type: "boolean" }, next_cursor: nullable({ type: "string" }) }, description);

/** A list of the component schema `item`, with the meta a list answer carries. */
const listOf = (item: string, description: string, meta: string): JsonSchema =>
  closed(
    {
      data: { type: "array", items: { $ref: `#/components/schemas/${item}` } },
      meta: listMeta(meta),
    },
    description,
  );

/** Whether a profile's number is suppressed on each channel. */
const suppressed = closed(
  { viber: { type: "boolean" }, sms: { type: "boolean" } },
  "Whether the number is suppressed on each channel: sends there are refused (403 recipient_opted_out) whatever the consent says.",
);

/** A page of `item` that a cursor continues. */
const pageSchema = (item: string, description: string): JsonSchema =>
  listOf(item, description, "Pass next_cursor as cursor for the next page.");

/** Every response schema, by the name routes use (`components.schemas`). */
export const responseSchemas: Record<string, JsonSchema> = {
  Profile: closed(
    { ...profileProperties, suppressed },
    "A profile; every field is present, null when absent, with the channels on which its number is suppressed.",
    {
      public_id: "prf_01jd3v6k8x2m4n5p6q7r8s9t0v",
      phone_number: "+14155550101",
      email: "ada@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
      full_name: "Ada Lovelace",
      viber_marketing_consent: false,
      sms_marketing_consent: true,
      attributes: { plan: "pro", orders: 3 },
      source: "api",
      created_at: "2026-11-23T09:30:00.000Z",
      updated_at: "2026-11-23T09:30:00.000Z",
      suppressed: { viber: false, sms: false },
    },
  ),
  ProfilePage: pageSchema("Profile", "A page of profiles, oldest first."),
  ProfileWithSuppressions: closed(
    { ...profileProperties, suppressed },
    "A profile with the channels on which its number is suppressed (the same as Profile, kept for its name).",
  ),
  SendResult: {
    ...closed(
      {
        message_id: { type: "string", format: "uuid" },
        status: {
          ...oneOf(["sent", "failed", "scheduled"]),
          description:
            "scheduled: held until scheduled_for, for the campaign's sending window or send_at.",
        },
        scheduled_for: { ...timestamp, description: "Present only when status is scheduled." },
        client_reference: nullable({ type: "string" }),
        error: messageError,
      },
      "The message dispatch result.",
      {
        message_id: "01936b8e-4c2a-7d3e-9f10-2b3c4d5e6f70",
        status: "sent",
        client_reference: "login-42",
        error: null,
      },
    ),
    required: ["message_id", "status", "client_reference", "error"],
  },
  Webhook: closed(
    webhookProperties,
    "A webhook subscription; its secret is never shown here.",
    webhookExample,
  ),
  WebhookWithSecret: closed(
    { ...webhookProperties, signing_secret: { type: "string", pattern: "^whsec_" } },
    "A webhook subscription with its signing secret, shown on create and rotation only.",
    { ...webhookExample, signing_secret: "whsec_3q2mYk9wQe1n0v5tZr8bXh4sLp7uJd6cAf2gKi0oMnE" },
  ),
  Settings: closed(
    {
      allowed_countries: nullable({
        type: "array",
        items: { type: "string", pattern: "^[A-Z]{2}$" },
        description:
          "The countries (ISO 3166-1 alpha-2; a number's country is its libphonenumber region, so GG, JE and IM are their own) messages may go to; null: all.",
      }),
      blocked_number_types: {
        type: "array",
        items: oneOf(NUMBER_TYPES),
        description: "Number types no message goes to (libphonenumber's types).",
      },
      destination_limits: closed(
        {
          per_hour: nullable({ type: "integer", minimum: 0 }),
          per_day: nullable({ type: "integer", minimum: 0 }),
        },
        "Sends to one number, every category, per sliding hour and day; null: no limit.",
      ),
      prefix_limits: closed(
        { per_hour: nullable({ type: "integer", minimum: 0 }) },
        "Sends to the numbers that share all but the last 3 digits of their national number, per sliding hour; null: no limit.",
      ),
      country_daily_limits: {
        type: "object",
        propertyNames: { pattern: "^[A-Z]{2}$" },
        additionalProperties: { type: "integer", minimum: 0 },
        description: "Sends per country per UTC day.",
      },
      updated_at: nullable(timestamp),
    },
    "The organization's abuse protection: where and how often it may send.",
    {
      allowed_countries: ["GB", "IE"],
      blocked_number_types: ["PREMIUM_RATE", "SHARED_COST", "UAN"],
      destination_limits: { per_hour: 10, per_day: 30 },
      prefix_limits: { per_hour: 100 },
      country_daily_limits: { GB: 500 },
      updated_at: "2026-12-06T01:00:00.000Z",
    },
  ),
  WebhookList: listOf(
    "Webhook",
    "The organization's subscriptions, oldest first.",
    "Every subscription fits on one page.",
  ),
  WebhookTestResult: closed(
    {
      success: { type: "boolean" },
      status_code: nullable({ type: "integer" }),
      duration_ms: { type: "number", minimum: 0 },
      error: nullable({ type: "string" }),
    },
    "How the receiver answered the test event.",
    { success: true, status_code: 200, duration_ms: 84, error: null },
  ),
  SandboxReportResult: closed(
    {
      message_id: { type: "string", format: "uuid" },
      applied: {
        type: "boolean",
        description: "False when the report would go backwards or repeat, and was ignored.",
      },
      status: oneOf(["sent", "delivered", "seen", "clicked", "failed", "expired"]),
    },
    "The message's status after the report.",
  ),
  SandboxMessage: closed(
    {
      message_id: { type: "string", format: "uuid" },
      channel: oneOf(["viber", "sms"]),
      sender: { type: "string" },
      text: { type: "string", description: "The text the sandbox was handed." },
    },
    "Development only: what the sandbox was handed for a message.",
  ),
  Suppression: closed(
    {
      channel: oneOf(["viber", "sms"]),
      phone_number: nullable({
        type: "string",
        description:
          "E.164, where the organization knows it: the request or the filter gives it, one of its profiles has it (the one that had it when the suppression came, or one given it since), or an inbound message still kept came from it. The number itself is not stored.",
      }),
      phone_number_hash: {
        type: "string",
        description:
          "The keyed hash the suppression is stored under (pseudonymised, not anonymous).",
      },
      source: oneOf(["inbound", "provider", "api"]),
      keyword: nullable({ type: "string" }),
      provider: nullable({ type: "string" }),
      note: nullable({ type: "string" }),
      created_at: timestamp,
    },
    "A number the organization does not send to on one channel.",
  ),
  SuppressionPage: pageSchema("Suppression", "A page of suppressions, newest first."),
  InboundMessage: closed(
    {
      inbound_id: { type: "string", format: "uuid" },
      channel: oneOf(["viber", "sms"]),
      from: { type: "string", description: "The person's number, E.164." },
      to: { type: "string", description: "The sender it was written to." },
      text: { type: "string" },
      keyword_class: nullable(oneOf(["opt_out", "opt_in", "help"])),
      public_id: nullable({ type: "string" }),
      provider: { type: "string" },
      received_at: timestamp,
    },
    "A message a person sent to one of the organization's senders.",
  ),
  InboundMessagePage: pageSchema("InboundMessage", "A page of inbound messages, newest first."),
  SandboxInboundResult: closed(
    { outcome: oneOf(["stored", "duplicate", "bad_sender", "no_owner"]) },
    "What became of a sandbox inbound message.",
  ),
  Campaign: closed(campaignProperties, "An API campaign."),
  CampaignPage: pageSchema("Campaign", "A page of campaigns, newest first."),
  Message: closed(messageProperties, "A message and its current status."),
  MessageWithEvents: closed(
    { ...messageProperties, events: { type: "array", items: messageEvent } },
    "A message with every lifecycle event, oldest first.",
  ),
  MessagePage: pageSchema("Message", "A page of messages, newest first."),
  Delivery: closed(deliveryProperties, "One webhook delivery: an event to one destination."),
  DeliveryWithAttempts: closed(
    { ...deliveryProperties, attempts: { type: "array", items: deliveryAttempt } },
    "A delivery with every attempt, oldest first.",
  ),
  DeliveryPage: pageSchema("Delivery", "A page of deliveries, newest first."),
  RecoverResult: closed(
    { requeued: { type: "integer", minimum: 0 } },
    "How many deliveries are pending again.",
  ),
  Erasure: closed(
    {
      profile_ids: {
        type: "array",
        items: { type: "string" },
        description: "The profiles the request found, erased now or before.",
      },
      erased: closed(
        Object.fromEntries(ERASED_KINDS.map((kind) => [kind, { type: "integer", minimum: 0 }])),
        "How many records of each kind lost what identified the person; all 0: nothing was left to erase.",
      ),
      erased_at: timestamp,
    },
    "What an erasure did.",
  ),
  PersonExport: closed(
    {
      exported_at: timestamp,
      profile: nullable(exportedProfile),
      other_profiles: { type: "array", items: exportedProfile },
      consent_history: {
        type: "array",
        description: "Every consent change of the person's profiles, oldest first.",
        items: closed(
          {
            profile_id: { type: "string" },
            channel: oneOf(["viber", "sms"]),
            old_value: nullable({ type: "boolean" }),
            new_value: { type: "boolean" },
            api_key_id: nullable({ type: "string" }),
            source: {
              ...oneOf(["api", "import", "console", "inbound", "provider"]),
              description: "What made the change.",
            },
            note: nullable({
              type: "string",
              description:
                "Why, where someone said: a suppression's note, or the note that lifted one; null once erased.",
            }),
            changed_at: timestamp,
          },
          "One change of a consent flag.",
        ),
      },
      messages: {
        type: "array",
        description: "Every message held about the person, oldest first.",
        items: closed(
          {
            ...messageProperties,
            text: nullable({
              type: "string",
              description: "The text sent, OTP codes masked; null once erased.",
            }),
            events: { type: "array", items: messageEvent },
          },
          "A message with its text, events and links.",
        ),
      },
      suppressions: {
        type: "array",
        description:
          "The suppressions of the person's numbers, oldest first; they outlive erasure (notes cleared).",
        items: closed(
          {
            channel: oneOf(["viber", "sms"]),
            phone_number: {
              type: "string",
              description: "The person's number the suppression is of (stored only as a hash).",
            },
            source: oneOf(["inbound", "provider", "api"]),
            keyword: nullable({ type: "string" }),
            provider: nullable({ type: "string" }),
            note: nullable({ type: "string" }),
            created_at: timestamp,
          },
          "A suppression of one of the person's numbers.",
        ),
      },
      inbound: {
        type: "array",
        description: "Every inbound message from the person's numbers or profiles, oldest first.",
        items: closed(
          {
            inbound_id: { type: "string", format: "uuid" },
            channel: oneOf(["viber", "sms"]),
            from: nullable({ type: "string", description: "E.164; null once erased." }),
            to: { type: "string", description: "The sender it was written to." },
            text: nullable({ type: "string", description: "null once erased." }),
            keyword_class: nullable(oneOf(["opt_out", "opt_in", "help"])),
            public_id: nullable({ type: "string" }),
            provider: { type: "string" },
            received_at: timestamp,
          },
          "A message the person sent.",
        ),
      },
    },
    "Everything held about a person.",
  ),
  Health: closed({ status: { type: "string" } }, "The process answers."),
  Problem: {
    type: "object",
    description: "An RFC 9457 problem document.",
    properties: {
      type: { type: "string", format: "uri" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      code: { type: "string", description: "Stable; switch on it." },
      request_id: { type: "string" },
      errors: {
        type: "array",
        description: "Every problem with the input, each with its path.",
        items: closed(
          { path: { type: "string" }, message: { type: "string" } },
          "One problem with the input.",
        ),
      },
      conflicts: {
        type: "array",
        description: "The records the request clashes with, e.g. other webhooks.",
        items: closed({ id: { type: "string" }, reason: { type: "string" } }, "One conflict."),
      },
      changed: {
        type: ["boolean", "null"],
        description:
          "`storage_unavailable` only: `false` when the request changed nothing (any retry is safe), `null` when it may have taken effect (retry only with the same `Idempotency-Key`).",
      },
    },
    required: ["type", "title", "status", "detail", "code", "request_id"],
    additionalProperties: false,
    examples: [
      {
        type: "https://tidings.dev/problems/validation_failed",
        title: "Bad Request",
        status: 400,
        detail: "The request is invalid.",
        code: "validation_failed",
        request_id: "01936b8e-4c2a-7d3e-9f10-2b3c4d5e6f71",
        errors: [
          {
            path: "phone_number",
            message: "must be an international phone number in E.164 format, starting with +.",
          },
        ],
      },
    ],
  },
};
