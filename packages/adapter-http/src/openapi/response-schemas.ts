/**
 * The response schemas of the OpenAPI document, written by hand: requests are validated by
 * valibot and converted, but answers are built by the core's view functions, so their shape
 * is stated here once and every in-process test checks real answers against it. Objects are
 * closed (`additionalProperties: false`) so a leaked internal field fails those checks.
 */

type JsonSchema = Record<string, unknown>;

const timestamp: JsonSchema = { type: "string", format: "date-time" };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });
const closed = (properties: Record<string, JsonSchema>, description: string): JsonSchema => ({
  type: "object",
  description,
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const TOPICS = [
  "message.sent",
  "message.delivered",
  "message.seen",
  "message.clicked",
  "message.failed",
  "message.expired",
];

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
  source: { enum: ["api", "import", "shopify", "woocommerce"] },
  created_at: timestamp,
  updated_at: timestamp,
};

const webhookProperties: Record<string, JsonSchema> = {
  webhook_id: { type: "string", pattern: "^whk_[0-9a-z]{26}$" },
  url: { type: "string" },
  topics: { type: "array", items: { enum: TOPICS }, minItems: 1 },
  status: { enum: ["active", "inactive"] },
  description: nullable({ type: "string" }),
  created_at: timestamp,
  updated_at: timestamp,
};

const listMeta = (description: string): JsonSchema =>
  closed({ has_more: { type: "boolean" }, next_cursor: nullable({ type: "string" }) }, description);

/** Every response schema, by the name routes use (`components.schemas`). */
export const responseSchemas: Record<string, JsonSchema> = {
  Profile: closed(profileProperties, "A profile; every field is present, null when absent."),
  ProfilePage: closed(
    {
      data: { type: "array", items: { $ref: "#/components/schemas/Profile" } },
      meta: listMeta("Pass next_cursor as cursor for the next page."),
    },
    "A page of profiles, oldest first.",
  ),
  SendResult: closed(
    {
      message_id: { type: "string", format: "uuid" },
      status: { enum: ["sent", "failed"] },
      client_reference: nullable({ type: "string" }),
      error: nullable({
        type: "object",
        properties: { code: { type: "string" }, message: { type: "string" } },
        required: ["code", "message"],
      }),
    },
    "The message dispatch result.",
  ),
  Webhook: closed(webhookProperties, "A webhook subscription; its secret is never shown here."),
  WebhookWithSecret: closed(
    { ...webhookProperties, signing_secret: { type: "string", pattern: "^whsec_" } },
    "A webhook subscription with its signing secret, shown on create and rotation only.",
  ),
  WebhookList: closed(
    {
      data: { type: "array", items: { $ref: "#/components/schemas/Webhook" } },
      meta: listMeta("Every subscription fits on one page."),
    },
    "The organization's subscriptions, oldest first.",
  ),
  WebhookTestResult: closed(
    {
      success: { type: "boolean" },
      status_code: nullable({ type: "integer" }),
      duration_ms: { type: "number", minimum: 0 },
      error: nullable({ type: "string" }),
    },
    "How the receiver answered the test event.",
  ),
  SandboxReportResult: closed(
    {
      message_id: { type: "string", format: "uuid" },
      applied: {
        type: "boolean",
        description: "False when the report would go backwards or repeat, and was ignored.",
      },
      status: { enum: ["sent", "delivered", "seen", "clicked", "failed", "expired"] },
    },
    "The message's status after the report.",
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
    },
    required: ["type", "title", "status", "detail", "code", "request_id"],
    additionalProperties: false,
  },
};
