// The API's shapes, named: aliases of the types generated from the server's OpenAPI document
// (src/generated/api.ts), so a change of the document shows here at compile time.
import type { components, operations } from "./generated/api.js";

type Schemas = components["schemas"];

export type Profile = Schemas["Profile"];
/** A profile as `profiles.get` answers it: with the channels its number is suppressed on. */
export type ProfileWithSuppressions = Schemas["ProfileWithSuppressions"];
export type Suppression = Schemas["Suppression"];
export type AddSuppressionRequest = Schemas["AddSuppressionRequest"];
export type InboundMessage = Schemas["InboundMessage"];
export type CreateProfileRequest = Schemas["CreateProfileRequest"];
export type UpdateProfileRequest = Schemas["UpdateProfileRequest"];
export type SendMessageRequest = Schemas["SendMessageRequest"];
export type SendResult = Schemas["SendResult"];
export type Message = Schemas["Message"];
export type MessageWithEvents = Schemas["MessageWithEvents"];
export type Webhook = Schemas["Webhook"];
export type WebhookWithSecret = Schemas["WebhookWithSecret"];
export type CreateWebhookRequest = Schemas["CreateWebhookRequest"];
export type UpdateWebhookRequest = Schemas["UpdateWebhookRequest"];
export type WebhookTestResult = Schemas["WebhookTestResult"];
export type RecoverResult = Schemas["RecoverResult"];
export type Campaign = Schemas["Campaign"];
export type CreateCampaignRequest = Schemas["CreateCampaignRequest"];
export type UpdateCampaignRequest = Schemas["UpdateCampaignRequest"];
export type Settings = Schemas["Settings"];
export type UpdateSettingsRequest = Schemas["UpdateSettingsRequest"];
export type Delivery = Schemas["Delivery"];
export type DeliveryWithAttempts = Schemas["DeliveryWithAttempts"];
export type Problem = Schemas["Problem"];
export type Erasure = Schemas["Erasure"];
export type PersonExport = Schemas["PersonExport"];
export type ErasePersonRequest = Schemas["ErasePersonRequest"];
/** A message lifecycle topic a webhook subscribes to, e.g. `message.delivered`. */
export type Topic = Webhook["topics"][number];
export type MessageStatus = Message["status"];

/** The query parameters of an operation, by its `operationId`. */
export type QueryOf<K extends keyof operations> = NonNullable<operations[K]["parameters"]["query"]>;
/** A list's filters, without the cursor and page size the iterator manages. */
type Filters<K extends keyof operations> = Omit<QueryOf<K>, "cursor" | "limit">;

export type ListProfilesQuery = QueryOf<"listProfiles">;
export type ListMessagesQuery = QueryOf<"listMessages">;
export type ListCampaignsQuery = QueryOf<"listCampaigns">;
export type ListDeliveriesQuery = QueryOf<"listDeliveries">;
export type ListWebhookDeliveriesQuery = QueryOf<"listWebhookDeliveries">;
export type ListMessageDeliveriesQuery = QueryOf<"listMessageDeliveries">;
export type ListSuppressionsQuery = QueryOf<"listSuppressions">;
export type ListInboundQuery = QueryOf<"listInbound">;
export type { Filters };

/** One page of a list: its items, and the cursor of the next page while `has_more`. */
export interface Page<T> {
  data: T[];
  meta: { has_more: boolean; next_cursor: string | null };
}

/** A message lifecycle event, as posted to a webhook. */
export interface MessageEvent {
  /** The delivery id: the same on every retry of this event to this destination. */
  id: string;
  topic: Exclude<Topic, "profile.erased">;
  created_at: string;
  data: {
    message_id: string;
    campaign_id: string;
    client_reference: string | null;
    channel: Message["channel"];
    status: MessageStatus;
    /** `phone_number` is `null` once the recipient was erased. */
    recipient: { public_id: string; phone_number: string | null };
    error: { code: string; message: string } | null;
  };
}

/** The event `webhooks.test` posts. */
export interface TestEvent {
  id: string;
  topic: "webhook.test";
  created_at: string;
  data: { webhook_id: string; message: string };
}

/** The event an erasure posts: which profile was erased, and when (nothing about the person). */
export interface ProfileErasedEvent {
  id: string;
  topic: "profile.erased";
  created_at: string;
  data: { public_id: string; erased_at: string };
}

/** Any event a webhook receives; narrow it by `topic`. */
export type WebhookEvent = MessageEvent | TestEvent | ProfileErasedEvent;
