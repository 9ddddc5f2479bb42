import { hasRedirectableShape } from "../links/redirect-shape.js";
import type {
  ApiKeyRecord,
  CampaignRecord,
  Category,
  Channel,
  ConsentChangeRecord,
  ConsentSource,
  ConsoleSessionRecord,
  ConsoleSignInTokenRecord,
  ContactListRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  FailingDestination,
  IdempotencyRecord,
  InboundMessageRecord,
  KeywordClass,
  LinkRecord,
  MembershipRecord,
  MessageEventRecord,
  MessagePriceRecord,
  MessageRecord,
  MessageStatus,
  OrganizationRecord,
  OrganizationSettingsRecord,
  ProfileRecord,
  ProfileSource,
  SenderAssignmentRecord,
  SuppressionKeyRecord,
  SuppressionRecord,
  SuppressionSource,
  WebhookSubscriptionRecord,
} from "../ports.js";
import { MESSAGE_TOPICS, TOPICS } from "../webhooks/webhook-input.js";
import type { SqlCodec } from "./codec.js";
import {
  allowedCountriesShape,
  attributesShape,
  blockedNumberTypesShape,
  countryDailyLimitsShape,
  destinationLimitsShape,
  destinationShape,
  legNotesShape,
  messageErrorShape,
  prefixLimitsShape,
  scopesShape,
  sendingWindowShape,
  storedResponseShape,
  topicsShape,
} from "./json-shapes.js";
import { type RowReader, rowReader, type TextShape } from "./row-reader.js";
import { type SqlTable, type SqlTableName, sqlTables as t } from "./tables.js";

/** Every member of a string union, checked complete by the compiler. */
const members = <T extends string>(all: Record<T, true>): readonly T[] => Object.keys(all) as T[];

/** Every channel, checked complete by the compiler. */
export const CHANNELS = members<Channel>({ viber: true, sms: true });
const CATEGORIES = members<Category>({ otp: true, transactional: true, promotional: true });
const ACTIVITY = members<"active" | "inactive">({ active: true, inactive: true });
const PROFILE_SOURCES = members<ProfileSource>({
  api: true,
  import: true,
  shopify: true,
  woocommerce: true,
});
const MESSAGE_STATUSES = members<MessageStatus>({
  scheduled: true,
  releasing: true,
  cancelled: true,
  sent: true,
  delivered: true,
  seen: true,
  clicked: true,
  failed: true,
  expired: true,
});
const DELIVERY_STATUSES = members<DeliveryStatus>({
  pending: true,
  delivered: true,
  failed: true,
  cancelled: true,
});
const IDEMPOTENCY_STATES = members<IdempotencyRecord["state"]>({
  in_progress: true,
  completed: true,
});
const DISABLED_REASONS = ["failing"] as const;
const CONSENT_SOURCES = members<ConsentSource>({
  api: true,
  import: true,
  console: true,
  inbound: true,
  provider: true,
});
const SUPPRESSION_SOURCES = members<SuppressionSource>({
  inbound: true,
  provider: true,
  api: true,
});
const KEYWORD_CLASSES = members<KeywordClass>({ opt_out: true, opt_in: true, help: true });
/** Every stored link was trackable; one that is not never leaves storage to be redirected to. */
const REDIRECTABLE_URL: TextShape = {
  expected: "an http or https URL without whitespace or control characters, or empty (erased)",
  // An erased link's URL is the empty string: it redirects nowhere, as an unknown code.
  is: (text) => text === "" || hasRedirectableShape(text),
};

/**
 * Each record as decoded from a driver's row; every decoder throws `CorruptRowError` on a bad
 * row, so a caller may hand over whatever the driver returned.
 */
export interface SqlRecords {
  organization(row: unknown): OrganizationRecord;
  organizationSettings(row: unknown): OrganizationSettingsRecord;
  profile(row: unknown): ProfileRecord;
  consentChange(row: unknown): ConsentChangeRecord;
  contactList(row: unknown): ContactListRecord;
  membership(row: unknown): MembershipRecord;
  campaign(row: unknown): CampaignRecord;
  apiKey(row: unknown): ApiKeyRecord;
  message(row: unknown): MessageRecord;
  messageEvent(row: unknown): MessageEventRecord;
  webhook(row: unknown): WebhookSubscriptionRecord;
  delivery(row: unknown): DeliveryRecord;
  attempt(row: unknown): DeliveryAttemptRecord;
  /** A line of `failingDestinations`: a group of deliveries with its counts. */
  failingDestination(row: unknown): FailingDestination;
  /**
   * A record read with its `seq` selected first (a newest-first page): `decode`'s record plus
   * the sequence, checked like any integer column.
   */
  sequenced<T>(table: string, decode: (row: unknown) => T): (row: unknown) => T & { seq: number };
  idempotency(row: unknown): IdempotencyRecord;
  consoleSignInToken(row: unknown): ConsoleSignInTokenRecord;
  consoleSession(row: unknown): ConsoleSessionRecord;
  link(row: unknown): LinkRecord;
  suppressionKey(row: unknown): SuppressionKeyRecord;
  suppression(row: unknown): SuppressionRecord;
  inboundMessage(row: unknown): InboundMessageRecord;
  senderAssignment(row: unknown): SenderAssignmentRecord;
  messagePrice(row: unknown): MessagePriceRecord;
}

/** The record the rows of each table decode to. */
export interface SqlRecordOf {
  organizations: OrganizationRecord;
  organizationSettings: OrganizationSettingsRecord;
  profiles: ProfileRecord;
  consentChanges: ConsentChangeRecord;
  contactLists: ContactListRecord;
  listMemberships: MembershipRecord;
  campaigns: CampaignRecord;
  apiKeys: ApiKeyRecord;
  messages: MessageRecord;
  messageEvents: MessageEventRecord;
  webhookSubscriptions: WebhookSubscriptionRecord;
  deliveries: DeliveryRecord;
  deliveryAttempts: DeliveryAttemptRecord;
  idempotencyRecords: IdempotencyRecord;
  consoleSignInTokens: ConsoleSignInTokenRecord;
  consoleSessions: ConsoleSessionRecord;
  links: LinkRecord;
  suppressionKeys: SuppressionKeyRecord;
  suppressions: SuppressionRecord;
  inboundMessages: InboundMessageRecord;
  senderAssignments: SenderAssignmentRecord;
  messagePrices: MessagePriceRecord;
}

/** Each table's decoder among `records`, by the table's name. */
export const decodersByTable = (
  records: SqlRecords,
): { readonly [N in SqlTableName]: (row: unknown) => SqlRecordOf[N] } => ({
  organizations: records.organization,
  organizationSettings: records.organizationSettings,
  profiles: records.profile,
  consentChanges: records.consentChange,
  contactLists: records.contactList,
  listMemberships: records.membership,
  campaigns: records.campaign,
  apiKeys: records.apiKey,
  messages: records.message,
  messageEvents: records.messageEvent,
  webhookSubscriptions: records.webhook,
  deliveries: records.delivery,
  deliveryAttempts: records.attempt,
  idempotencyRecords: records.idempotency,
  consoleSignInTokens: records.consoleSignInToken,
  consoleSessions: records.consoleSession,
  links: records.link,
  suppressionKeys: records.suppressionKey,
  suppressions: records.suppression,
  inboundMessages: records.inboundMessage,
  senderAssignments: records.senderAssignment,
  messagePrices: records.messagePrice,
});

/** The row decoders of one database, whose differences `codec` carries. */
export function sqlRecords(codec: SqlCodec): SqlRecords {
  const from =
    <T>(table: SqlTable, decode: (r: RowReader) => T) =>
    (row: unknown): T =>
      decode(rowReader(table.name, row, codec));
  return {
    sequenced: (table, decode) => (row) => ({
      ...decode(row),
      seq: rowReader(table, row, codec).integer("seq"),
    }),
    organization: from(t.organizations, (r) => ({
      id: r.text("id"),
      name: r.text("name"),
      createdAt: r.text("created_at"),
    })),
    organizationSettings: from(t.organizationSettings, (r) => ({
      organizationId: r.text("organization_id"),
      allowedCountries: r.jsonOrNull("allowed_countries", allowedCountriesShape),
      blockedNumberTypes: r.json("blocked_number_types", blockedNumberTypesShape),
      destinationLimits: r.json("destination_limits", destinationLimitsShape),
      prefixLimits: r.json("prefix_limits", prefixLimitsShape),
      countryDailyLimits: r.json("country_daily_limits", countryDailyLimitsShape),
      updatedAt: r.text("updated_at"),
    })),
    profile: from(t.profiles, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      seq: r.integer("seq"),
      phoneNumber: r.text("phone_number"),
      email: r.textOrNull("email"),
      firstName: r.textOrNull("first_name"),
      lastName: r.textOrNull("last_name"),
      viberMarketingConsent: r.flag("viber_marketing_consent"),
      smsMarketingConsent: r.flag("sms_marketing_consent"),
      attributes: r.json("attributes", attributesShape),
      source: r.oneOf("source", PROFILE_SOURCES),
      status: r.oneOf("status", ACTIVITY),
      createdAt: r.text("created_at"),
      updatedAt: r.text("updated_at"),
      deletedAt: r.textOrNull("deleted_at"),
      timeZone: r.textOrNull("time_zone"),
    })),
    consentChange: from(t.consentChanges, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      profileId: r.text("profile_id"),
      channel: r.oneOf("channel", CHANNELS),
      oldValue: r.flagOrNull("old_value"),
      newValue: r.flag("new_value"),
      apiKeyId: r.textOrNull("api_key_id"),
      source: r.oneOf("source", CONSENT_SOURCES),
      changedAt: r.text("changed_at"),
      note: r.textOrNull("note"),
    })),
    contactList: from(t.contactLists, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      name: r.text("name"),
      createdAt: r.text("created_at"),
    })),
    membership: from(t.listMemberships, (r) => ({
      listId: r.text("list_id"),
      profileId: r.text("profile_id"),
      organizationId: r.text("organization_id"),
      addedAt: r.text("added_at"),
    })),
    campaign: from(t.campaigns, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      name: r.text("name"),
      channel: r.oneOf("channel", CHANNELS),
      smsFallback: r.flag("sms_fallback"),
      category: r.oneOf("category", CATEGORIES),
      sender: r.text("sender"),
      template: r.text("template"),
      ttlSeconds: r.integer("ttl_seconds"),
      status: r.oneOf("status", ACTIVITY),
      createdAt: r.text("created_at"),
      updatedAt: r.text("updated_at"),
      smsSender: r.textOrNull("sms_sender"),
      trackLinks: r.flag("track_links"),
      sendingWindow: r.jsonOrNull("sending_window", sendingWindowShape),
      allowedCountries: r.jsonOrNull("allowed_countries", allowedCountriesShape),
    })),
    apiKey: from(t.apiKeys, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      secretHash: r.text("secret_hash"),
      webhookSigningSecretSealed: r.text("webhook_signing_secret_sealed"),
      scopes: r.json("scopes", scopesShape),
      expiresAt: r.textOrNull("expires_at"),
      revokedAt: r.textOrNull("revoked_at"),
      createdAt: r.text("created_at"),
      name: r.textOrNull("name"),
    })),
    message: from(t.messages, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      apiKeyId: r.text("api_key_id"),
      campaignId: r.text("campaign_id"),
      profileId: r.text("profile_id"),
      phoneNumber: r.text("phone_number"),
      category: r.oneOf("category", CATEGORIES),
      channel: r.oneOf("channel", CHANNELS),
      smsFallbackAllowed: r.flag("sms_fallback_allowed"),
      sender: r.text("sender"),
      body: r.text("body"),
      clientReference: r.textOrNull("client_reference"),
      webhookUrl: r.textOrNull("webhook_url"),
      status: r.oneOf("status", MESSAGE_STATUSES),
      error: r.jsonOrNull("error", messageErrorShape),
      expiresAt: r.text("expires_at"),
      createdAt: r.text("created_at"),
      updatedAt: r.text("updated_at"),
      viberProvider: r.textOrNull("viber_provider"),
      viberProviderMessageId: r.textOrNull("viber_provider_message_id"),
      smsProvider: r.textOrNull("sms_provider"),
      smsProviderMessageId: r.textOrNull("sms_provider_message_id"),
      fallbackDueAt: r.textOrNull("fallback_due_at"),
      scheduledFor: r.textOrNull("scheduled_for"),
      smsSentFrom: r.textOrNull("sms_sent_from"),
      viberLegNotes: r.jsonOrNull("viber_leg_notes", legNotesShape),
      smsLegNotes: r.jsonOrNull("sms_leg_notes", legNotesShape),
    })),
    messageEvent: from(t.messageEvents, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      messageId: r.text("message_id"),
      topic: r.oneOf("topic", MESSAGE_TOPICS),
      channel: r.oneOf("channel", CHANNELS),
      error: r.jsonOrNull("error", messageErrorShape),
      createdAt: r.text("created_at"),
    })),
    webhook: from(t.webhookSubscriptions, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      url: r.text("url"),
      topics: r.json("topics", topicsShape),
      status: r.oneOf("status", ACTIVITY),
      description: r.textOrNull("description"),
      secretSealed: r.text("secret_sealed"),
      disabledReason: r.oneOfOrNull("disabled_reason", DISABLED_REASONS),
      failingSince: r.textOrNull("failing_since"),
      createdAt: r.text("created_at"),
      updatedAt: r.text("updated_at"),
    })),
    delivery: from(t.deliveries, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      eventId: r.text("event_id"),
      messageId: r.textOrNull("message_id"),
      topic: r.oneOf("topic", TOPICS),
      destination: r.json("destination", destinationShape),
      destinationKey: r.text("destination_key"),
      payload: r.text("payload"),
      status: r.oneOf("status", DELIVERY_STATUSES),
      attempts: r.integer("attempts"),
      nextAttemptAt: r.text("next_attempt_at"),
      firstAttemptAt: r.textOrNull("first_attempt_at"),
      leaseOwner: r.textOrNull("lease_owner"),
      leaseExpiresAt: r.textOrNull("lease_expires_at"),
      lastStatusCode: r.integerOrNull("last_status_code"),
      lastError: r.textOrNull("last_error"),
      lastAttemptAt: r.textOrNull("last_attempt_at"),
      windowStartAttempt: r.integer("window_start_attempt"),
      createdAt: r.text("created_at"),
      updatedAt: r.text("updated_at"),
    })),
    attempt: from(t.deliveryAttempts, (r) => ({
      deliveryId: r.text("delivery_id"),
      organizationId: r.text("organization_id"),
      attempt: r.integer("attempt"),
      startedAt: r.text("started_at"),
      durationMs: r.integer("duration_ms"),
      statusCode: r.integerOrNull("status_code"),
      error: r.textOrNull("error"),
      responseBody: r.textOrNull("response_body"),
    })),
    failingDestination: from(t.deliveries, (r) => ({
      webhookId: r.textOrNull("webhook_id"),
      destinationKey: r.text("destination_key"),
      url: r.textOrNull("url"),
      retrying: r.integer("retrying"),
      failed: r.integer("failed"),
      lastAttemptAt: r.text("last_attempt_at"),
      lastStatusCode: r.integerOrNull("last_status_code"),
      lastError: r.textOrNull("last_error"),
    })),
    idempotency: from(t.idempotencyRecords, (r) => ({
      apiKeyId: r.text("api_key_id"),
      endpoint: r.text("endpoint"),
      key: r.text("key"),
      requestHash: r.text("request_hash"),
      state: r.oneOf("state", IDEMPOTENCY_STATES),
      response: r.jsonOrNull("response", storedResponseShape),
      lockedUntil: r.textOrNull("locked_until"),
      recoveryPoint: r.textOrNull("recovery_point"),
      createdAt: r.text("created_at"),
      expiresAt: r.text("expires_at"),
    })),
    consoleSignInToken: from(t.consoleSignInTokens, (r) => ({
      tokenHash: r.text("token_hash"),
      organizationId: r.text("organization_id"),
      createdAt: r.text("created_at"),
      expiresAt: r.text("expires_at"),
    })),
    consoleSession: from(t.consoleSessions, (r) => ({
      idHash: r.text("id_hash"),
      organizationId: r.text("organization_id"),
      createdAt: r.text("created_at"),
      lastSeenAt: r.text("last_seen_at"),
      expiresAt: r.text("expires_at"),
    })),
    link: from(t.links, (r) => ({
      code: r.text("code"),
      messageId: r.text("message_id"),
      organizationId: r.text("organization_id"),
      originalUrl: r.textOf("original_url", REDIRECTABLE_URL),
      createdAt: r.text("created_at"),
      clicks: r.integer("clicks"),
      firstClickedAt: r.textOrNull("first_clicked_at"),
      lastClickedAt: r.textOrNull("last_clicked_at"),
    })),
    suppressionKey: from(t.suppressionKeys, (r) => ({
      organizationId: r.text("organization_id"),
      keySealed: r.text("key_sealed"),
      createdAt: r.text("created_at"),
    })),
    suppression: from(t.suppressions, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      channel: r.oneOf("channel", CHANNELS),
      phoneHash: r.text("phone_hash"),
      source: r.oneOf("source", SUPPRESSION_SOURCES),
      keyword: r.textOrNull("keyword"),
      provider: r.textOrNull("provider"),
      note: r.textOrNull("note"),
      consentBefore: r.flagOrNull("consent_before"),
      profileId: r.textOrNull("profile_id"),
      inboundId: r.textOrNull("inbound_id"),
      createdAt: r.text("created_at"),
    })),
    inboundMessage: from(t.inboundMessages, (r) => ({
      id: r.text("id"),
      organizationId: r.text("organization_id"),
      provider: r.text("provider"),
      providerMessageId: r.text("provider_message_id"),
      channel: r.oneOf("channel", CHANNELS),
      fromNumber: r.text("from_number"),
      toSender: r.text("to_sender"),
      text: r.text("text"),
      keywordClass: r.oneOfOrNull("keyword_class", KEYWORD_CLASSES),
      profileId: r.textOrNull("profile_id"),
      receivedAt: r.text("received_at"),
    })),
    senderAssignment: from(t.senderAssignments, (r) => ({
      organizationId: r.text("organization_id"),
      channel: r.oneOf("channel", CHANNELS),
      sender: r.text("sender"),
      createdAt: r.text("created_at"),
    })),
    messagePrice: from(t.messagePrices, (r) => ({
      messageId: r.text("message_id"),
      organizationId: r.text("organization_id"),
      channel: r.oneOf("channel", CHANNELS),
      provider: r.text("provider"),
      amountMicros: r.integer("amount_micros"),
      currency: r.text("currency"),
      country: r.textOrNull("country"),
      reportedAt: r.text("reported_at"),
    })),
  };
}
