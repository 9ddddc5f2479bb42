import type {
  ApiKeyRecord,
  AttemptOutcome,
  CampaignRecord,
  ConsentChangeRecord,
  ContactListRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DeliveryRepository,
  IdempotencyRecord,
  MembershipRecord,
  MessageEventRecord,
  MessageRecord,
  NewProfile,
  OrganizationRecord,
  WebhookSubscriptionRecord,
} from "../../ports.js";
import { isoAt } from "../../support/clock.js";
import { createIds } from "../../support/ids.js";
import { destinationKey } from "../../webhooks/delivery-destination.js";
import { notYetAttempted } from "../../webhooks/outbox.js";
import { TOPICS } from "../../webhooks/webhook-input.js";

/**
 * Record builders for storage tests: valid-looking ids, fixed timestamps, overridable fields.
 * Records owned by an organization need its id, so a test never writes to one it did not make.
 */

const ids = createIds();

/** The fixtures' epoch: 2026-01-01T00:00:00.000Z. */
export const T0 = Date.UTC(2026, 0, 1);

/** The ISO timestamp `seconds` after `T0` (fractions allowed). */
export const at = (seconds: number): string => isoAt(T0 + Math.round(seconds * 1000));

/** A fresh UUID v7. */
export const aUuid = (): string => ids.uuidv7();

let phones = 0;
/** A fresh, valid Greek mobile number in E.164, different on every call. */
export function aPhone(): string {
  phones += 1;
  return `+30694${String(phones % 10_000_000).padStart(7, "0")}`;
}

type Owned<T extends { organizationId: string }> = Partial<T> & Pick<T, "organizationId">;

/** An organization. */
export const anOrganization = (
  overrides: Partial<OrganizationRecord> = {},
): OrganizationRecord => ({
  id: ids.prefixed("org"),
  name: "Acme",
  createdAt: at(0),
  ...overrides,
});

/** An active profile with a fresh phone number, both consents off, no email. */
export const aProfile = (overrides: Owned<NewProfile>): NewProfile => ({
  id: ids.prefixed("prf"),
  phoneNumber: aPhone(),
  email: null,
  firstName: "Ada",
  lastName: "Lovelace",
  viberMarketingConsent: false,
  smsMarketingConsent: false,
  attributes: {},
  source: "api",
  status: "active",
  createdAt: at(0),
  updatedAt: at(0),
  deletedAt: null,
  timeZone: null,
  ...overrides,
});

/** A consent change of a profile: Viber consent switched on at creation. */
export const aConsentChange = (
  overrides: Owned<ConsentChangeRecord> & Pick<ConsentChangeRecord, "profileId">,
): ConsentChangeRecord => ({
  id: ids.uuidv7(),
  channel: "viber",
  oldValue: null,
  newValue: true,
  apiKeyId: null,
  source: "api",
  changedAt: at(0),
  note: null,
  ...overrides,
});

/** A contact list with a unique name. */
export const aContactList = (overrides: Owned<ContactListRecord>): ContactListRecord => {
  const id = ids.prefixed("lst");
  return { id, name: `List ${id.slice(-6)}`, createdAt: at(0), ...overrides };
};

/** A membership of a profile in a list. */
export const aMembership = (
  overrides: Owned<MembershipRecord> & Pick<MembershipRecord, "listId" | "profileId">,
): MembershipRecord => ({ addedAt: at(0), ...overrides });

/** An active SMS transactional campaign. */
export const aCampaign = (overrides: Owned<CampaignRecord>): CampaignRecord => ({
  id: ids.prefixed("cmp"),
  name: "Order updates",
  channel: "sms",
  smsFallback: false,
  category: "transactional",
  sender: "Acme",
  template: "Your order {{order}} has shipped",
  ttlSeconds: 86_400,
  status: "active",
  createdAt: at(0),
  updatedAt: at(0),
  smsSender: null,
  trackLinks: false,
  sendingWindow: null,
  allowedCountries: null,
  ...overrides,
});

/** An unrevoked, unexpiring API key with every scope. */
export const anApiKey = (overrides: Owned<ApiKeyRecord>): ApiKeyRecord => ({
  id: ids.prefixed("key"),
  name: null,
  secretHash: "sha256$47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU",
  webhookSigningSecretSealed: "sealed:key-secret",
  scopes: ["profiles:read", "profiles:write", "messages:send", "webhooks:manage"],
  expiresAt: null,
  revokedAt: null,
  createdAt: at(0),
  ...overrides,
});

/** A `sent` SMS message that expires a day after `at(0)`. */
export const aMessage = (
  overrides: Owned<MessageRecord> & Pick<MessageRecord, "apiKeyId" | "campaignId" | "profileId">,
): MessageRecord => ({
  id: ids.uuidv7(),
  phoneNumber: "+306940000000",
  category: "transactional",
  channel: "sms",
  smsFallbackAllowed: false,
  sender: "Acme",
  body: "Your order 42 has shipped",
  clientReference: null,
  webhookUrl: null,
  status: "sent",
  error: null,
  expiresAt: at(86_400),
  createdAt: at(0),
  updatedAt: at(0),
  viberProvider: null,
  viberProviderMessageId: null,
  smsProvider: "sandbox",
  smsProviderMessageId: null,
  fallbackDueAt: null,
  scheduledFor: null,
  smsSentFrom: null,
  viberLegNotes: null,
  smsLegNotes: null,
  ...overrides,
});

/** A `message.sent` event. */
export const anEvent = (
  overrides: Owned<MessageEventRecord> & Pick<MessageEventRecord, "messageId">,
): MessageEventRecord => ({
  id: ids.uuidv7(),
  topic: "message.sent",
  channel: "sms",
  error: null,
  createdAt: at(0),
  ...overrides,
});

/** An active subscription to every topic. */
export const aWebhook = (
  overrides: Owned<WebhookSubscriptionRecord>,
): WebhookSubscriptionRecord => ({
  id: ids.prefixed("whk"),
  url: "https://hooks.example.com/tidings",
  topics: [...TOPICS],
  status: "active",
  description: null,
  secretSealed: "sealed:whsec",
  disabledReason: null,
  failingSince: null,
  createdAt: at(0),
  updatedAt: at(0),
  ...overrides,
});

/**
 * A pending delivery of an event, due at `at(0)`, never attempted, unleased; its
 * `destinationKey` is its organization's and its URL's origin (a subscription's id stands for
 * its URL here), unless given.
 */
export const aDelivery = (
  overrides: Owned<DeliveryRecord> & Pick<DeliveryRecord, "eventId" | "destination">,
): DeliveryRecord => ({
  id: ids.uuidv7(),
  destinationKey: destinationKey(
    overrides.organizationId,
    overrides.destination.kind === "message"
      ? overrides.destination.url
      : `https://${overrides.destination.webhookId}.example.com`,
  ),
  messageId: null,
  topic: "message.sent",
  payload: '{"id":"x","topic":"message.sent"}',
  ...notYetAttempted(at(0)),
  ...overrides,
});

/** A first attempt that got a 500 after 120 ms. */
export const anAttempt = (
  overrides: Owned<DeliveryAttemptRecord> & Pick<DeliveryAttemptRecord, "deliveryId">,
): DeliveryAttemptRecord => ({
  attempt: 0,
  startedAt: at(1),
  durationMs: 120,
  statusCode: 500,
  error: null,
  responseBody: "oops",
  ...overrides,
});

/** A started request on `POST /v1/messages/send`, kept for a day. */
export const anIdempotencyRecord = (
  overrides: Partial<IdempotencyRecord> & Pick<IdempotencyRecord, "apiKeyId">,
): IdempotencyRecord => ({
  endpoint: "POST /v1/messages/send",
  key: `idem-${ids.uuidv7()}`,
  requestHash: "sha256:abc",
  state: "in_progress",
  response: null,
  lockedUntil: at(60),
  recoveryPoint: null,
  createdAt: at(0),
  expiresAt: at(86_400),
  ...overrides,
});

/** Records one attempt on `id` through `completeAttempts`; whether its outcome applied. */
export async function completeOne(
  deliveries: Pick<DeliveryRepository, "completeAttempts">,
  id: string,
  owner: string,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const [applied] = await deliveries.completeAttempts(owner, [{ id, ...outcome }]);
  return applied === true;
}
