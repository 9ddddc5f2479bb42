import * as v from "valibot";
import { strictFields } from "../support/parse.js";
import { lengthBetween } from "../support/text.js";
import { webhookUrlSchema } from "../webhooks/webhook-input.js";
import { sendAtSchema } from "./send-schedule.js";

/** docs/decisions.md "Campaign template": `client_reference` is at most 255 characters. */
export const MAX_CLIENT_REFERENCE_LENGTH = 255;

/** The recipient identifier object, discriminated by `type`. */
const recipient = strictFields(
  {
    type: v.picklist(
      ["phone_number", "email", "public_id"],
      'must be "phone_number", "email" or "public_id".',
    ),
    // Trimmed like the profile fields it is matched against.
    value: v.pipe(
      v.string("must be a string."),
      v.trim(),
      v.check((text) => text !== "", "must not be empty."),
    ),
  },
  "must be an object with type and value.",
);

/**
 * The body of POST /v1/messages/send. Unknown fields are refused. `params` is only checked to
 * be an object here: its values are checked against the campaign by `validateParams`.
 */
export const sendMessageInput = strictFields(
  {
    campaign_id: v.string("must be a string."),
    recipient,
    params: v.optional(
      v.pipe(
        v.custom<Record<string, unknown>>(
          (input) => typeof input === "object" && input !== null && !Array.isArray(input),
          "must be an object mapping each template placeholder to a value.",
        ),
        // The values are checked against the campaign's template, which a schema cannot see;
        // the published schema states the shape clients should send.
        v.metadata({
          openApi: {
            type: "object",
            description:
              "A value for every placeholder of the campaign's template, and no other. " +
              "Numbers are accepted too and turned into strings.",
            additionalProperties: { type: "string" },
            examples: [{ pin: "123456" }],
          },
        }),
      ),
    ),
    client_reference: v.optional(
      v.pipe(v.string("must be a string."), lengthBetween(1, MAX_CLIENT_REFERENCE_LENGTH)),
    ),
    // As long as a subscription's may be: it is stored with the message and each delivery.
    webhook_url: v.optional(webhookUrlSchema),
    // Whether it is at most 30 days ahead is checked against the clock (`checkSendAt`).
    send_at: v.optional(sendAtSchema),
  },
  "must be a JSON object.",
);

export type SendMessageInput = v.InferOutput<typeof sendMessageInput>;
