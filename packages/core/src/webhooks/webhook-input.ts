import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type Issue, type ValidationError, validationError } from "../errors.js";
import type { Topic, UrlPolicy, WebhookTopic } from "../ports.js";
import { strictFields, toIssues } from "../support/parse.js";

/** The six topics of a message's lifecycle events. */
export const MESSAGE_TOPICS: readonly Topic[] = [
  "message.sent",
  "message.delivered",
  "message.seen",
  "message.clicked",
  "message.failed",
  "message.expired",
  "message.cancelled",
];

/**
 * Every topic a subscription may choose from: the message lifecycle, then a profile's consent
 * changes, the messages people send in and a person's erasure (all three for organization
 * subscriptions only).
 */
export const TOPICS: readonly WebhookTopic[] = [
  ...MESSAGE_TOPICS,
  "profile.consent_changed",
  "message.received",
  "profile.erased",
];

/** A webhook URL, of a subscription or of one message: 1 to 2048 characters. */
export const webhookUrlSchema = v.pipe(
  v.string("must be a string."),
  v.minLength(1, "must not be empty."),
  v.maxLength(2048, "must be at most 2048 characters."),
);

const topics = v.pipe(
  v.array(v.picklist(TOPICS, `must be one of ${TOPICS.join(", ")}.`), "must be an array."),
  v.minLength(1, "must name at least one topic."),
  v.check((list) => new Set(list).size === list.length, "must not name a topic twice."),
);

const status = v.picklist(["active", "inactive"] as const, "must be active or inactive.");

const description = v.nullable(
  v.pipe(
    v.string("must be a string or null."),
    v.maxLength(500, "must be at most 500 characters."),
  ),
);

/** POST /v1/webhooks: `{ url, topics, status? = "active", description? }`. */
export const createWebhookInput = strictFields(
  {
    url: webhookUrlSchema,
    topics,
    status: v.optional(status, "active"),
    description: v.optional(description, null),
  },
  "must be a JSON object.",
);

/** PATCH /v1/webhooks/{webhook_id}: any subset of the create fields. */
export const updateWebhookInput = strictFields(
  {
    url: v.optional(webhookUrlSchema),
    topics: v.optional(topics),
    status: v.optional(status),
    description: v.optional(description),
  },
  "must be a JSON object.",
);

/** POST /v1/webhooks/test: `{ webhook_id }`. */
export const testWebhookInput = strictFields(
  {
    webhook_id: v.string("must be a string."),
  },
  "must be a JSON object.",
);

export type CreateWebhookInput = v.InferOutput<typeof createWebhookInput>;
export type UpdateWebhookInput = v.InferOutput<typeof updateWebhookInput>;

/**
 * Parses a create or update body and checks its `url` against the URL policy, so the caller
 * gets every issue at once: the schema's and the policy's.
 */
export async function parseWebhookInput<S extends v.GenericSchema>(
  urlPolicy: UrlPolicy,
  schema: S,
  input: unknown,
): Promise<Result<v.InferOutput<S>, ValidationError>> {
  const parsed = v.safeParse(schema, input, { abortEarly: false });
  const issues: Issue[] = parsed.success ? [] : toIssues(parsed.issues);
  const url = typeof input === "object" && input !== null ? Reflect.get(input, "url") : undefined;
  if (typeof url === "string" && !issues.some((issue) => issue.path === "url")) {
    const verdict = await urlPolicy.check(url);
    if (!verdict.allowed) issues.push({ path: "url", message: verdict.reason, rule: "url_policy" });
  }
  if (parsed.success && issues.length === 0) return ok(parsed.output);
  return err(validationError(issues));
}
