// @tidings/core: the domain and its ports. No I/O, no framework.
// Each module's public names are listed explicitly (types on their own line); only ports.ts and
// errors.ts, whose every type is public, are re-exported whole with `export type *`.

export type { ApiKeyCache, ApiKeyCacheOptions } from "./auth/api-key-cache.js";
export { cachingApiKeys } from "./auth/api-key-cache.js";
export type { ApiKeyView, CreatedApiKey } from "./auth/api-keys.js";
export {
  createApiKey,
  listApiKeys,
  MAX_KEY_NAME_LENGTH,
  revokeApiKey,
  toApiKeyView,
} from "./auth/api-keys.js";
export type { Principal } from "./auth/authenticate.js";
export { authenticate } from "./auth/authenticate.js";
export type { ConsoleSession, SignInToken } from "./auth/console-sessions.js";
export {
  CONSOLE_IDLE_MS,
  createSignInToken,
  csrfTokenOf,
  isCsrfToken,
  isSignInTokenValid,
  resumeSession,
  revokeConsoleSessions,
  SIGN_IN_LINK_DEFAULT_MINUTES,
  SIGN_IN_LINK_MAX_MINUTES,
  signIn,
  signOut,
} from "./auth/console-sessions.js";
export { createOrganization } from "./auth/organizations.js";
export { isScope, requireScope, SCOPE_GRANTS, SCOPES } from "./auth/scopes.js";
export type { CampaignCache } from "./campaigns/campaign-cache.js";
export { cachingCampaigns } from "./campaigns/campaign-cache.js";
export {
  createCampaignInput,
  DEFAULT_TTL_SECONDS,
  listCampaignsQuery,
  MAX_TEMPLATE_LENGTH,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
  updateCampaignInput,
} from "./campaigns/campaign-input.js";
export type { CampaignView } from "./campaigns/campaign-view.js";
export { toCampaignView } from "./campaigns/campaign-view.js";
export { createCampaign } from "./campaigns/create-campaign.js";
export {
  campaignNotFound,
  findCampaign,
  getCampaign,
  listCampaigns,
} from "./campaigns/get-campaign.js";
export type { FoundLink, LinkKind, WebUrlSpan } from "./campaigns/link-detection.js";
export {
  findLink,
  findWebUrls,
  KNOWN_SCHEMES,
  normalizeForLinkDetection,
} from "./campaigns/link-detection.js";
export { MAX_PLACEHOLDERS, parseTemplate, renderTemplate } from "./campaigns/template.js";
export {
  activateCampaign,
  deactivateCampaign,
  updateCampaign,
} from "./campaigns/update-campaign.js";
export type { ParamsCampaign } from "./campaigns/viber-params.js";
export { VIBER_MAX_PARAM_LENGTH, validateParams } from "./campaigns/viber-params.js";
export type { Actor, Deps, LinkSettings, TidingsConfig } from "./deps.js";
export { defaultConfig } from "./deps.js";
export type * from "./errors.js";
export { notFound, validationError } from "./errors.js";
export type {
  Checkpoint,
  IdempotentOutcome,
  IdempotentRequest,
  Recover,
} from "./idempotency/with-idempotency.js";
export {
  IdempotencyTakenOverError,
  isReplayable,
  withIdempotency,
} from "./idempotency/with-idempotency.js";
export type { InboundSinkOptions, InboundTelemetry } from "./inbound/inbound-sink.js";
export { inboundSink } from "./inbound/inbound-sink.js";
export type { KeywordLists, KeywordMatch } from "./inbound/keywords.js";
export {
  DEFAULT_KEYWORDS,
  keywordMatcher,
  keywordWords,
  parseKeywords,
} from "./inbound/keywords.js";
export { meansOptedOut, recipientOptedOut } from "./inbound/opted-out.js";
export {
  phoneHash,
  suppressionKey,
  unopenableSuppressionKeys,
} from "./inbound/suppression-keys.js";
export type { InboundMessageView, SuppressionView } from "./inbound/suppressions.js";
export {
  addSuppression,
  addSuppressionInput,
  exportSuppressions,
  listInbound,
  listInboundQuery,
  listSuppressions,
  listSuppressionsQuery,
  profileSuppressed,
  removeSuppression,
  removeSuppressionInput,
  toInboundView,
} from "./inbound/suppressions.js";
export type { FollowedLink } from "./links/follow-link.js";
export { followLink } from "./links/follow-link.js";
export { trackingRefusal, usableLinkBase } from "./links/link-base.js";
export { isLinkCode, LINK_CODE_LENGTH, newLinkCode } from "./links/link-code.js";
export type { LinkView } from "./links/link-view.js";
export { toLinkViews } from "./links/link-view.js";
export type { MessageBody } from "./links/message-body.js";
export { messageBody } from "./links/message-body.js";
export type { TrackedText, TrackedUrl } from "./links/tracked-text.js";
export { isTrackableUrl, renderTracked, shortLink } from "./links/tracked-text.js";
export { DEFAULT_EXPIRY_BATCH, expireMessages } from "./messages/expire-messages.js";
export {
  findMessage,
  getMessage,
  listMessageEvents,
  messageNotFound,
} from "./messages/get-message.js";
export { listMessages, listMessagesQuery } from "./messages/list-messages.js";
export type {
  ChannelActivity,
  CountryActivity,
  HourlyMessageCounts,
} from "./messages/message-counts.js";
export {
  channelActivity,
  countRecentMessages,
  countryActivity,
} from "./messages/message-counts.js";
export type { MessageErrorView } from "./messages/message-error.js";
export { toErrorView } from "./messages/message-error.js";
export type { LegPriceView, MessagePriceView } from "./messages/message-prices.js";
export {
  decimalOf,
  priceOf,
  recordUpstreamPrice,
} from "./messages/message-prices.js";
export type {
  MessageEventView,
  MessageView,
  MessageWithEventsView,
} from "./messages/message-view.js";
export { toMessageEventView, toMessageView } from "./messages/message-view.js";
export { legOf, providerOf } from "./messages/provider-legs.js";
export type {
  IgnoredLeg,
  ReportOutcome,
  UpstreamReportOutcome,
} from "./messages/provider-report.js";
export {
  recordCallbackReport,
  recordProviderReport,
  recordUpstreamReport,
  recordUpstreamSentFrom,
  type UpstreamSentFrom,
} from "./messages/provider-report.js";
export type { ReportBatchOptions } from "./messages/report-batches.js";
export { batchedProviderReports } from "./messages/report-batches.js";
export type {
  SandboxProvider,
  SandboxProviderOptions,
  SandboxScheduler,
} from "./messages/sandbox-provider.js";
export { SANDBOX_NUMBERS, sandboxProvider } from "./messages/sandbox-provider.js";
export type { ReleaseOptions, ReleaseRound } from "./messages/scheduled-messages.js";
export {
  cancelMessage,
  cancelScheduledOfKey,
  messageNotScheduled,
  releaseDueMessages,
} from "./messages/scheduled-messages.js";
export type { SendMessageInput } from "./messages/send-input.js";
export { MAX_CLIENT_REFERENCE_LENGTH, sendMessageInput } from "./messages/send-input.js";
export type { SendOptions, SendResult } from "./messages/send-message.js";
export { recoverSendResult, sendMessage, toSendResult } from "./messages/send-message.js";
export { DEFAULT_FALLBACK_LEASE_MS, runDueFallbacks } from "./messages/sms-fallback.js";
export type * from "./ports.js";
export type {
  InboundChannel,
  InboundOutcome,
  InboundReport,
  InboundSink,
  ProviderKeywordClass,
} from "./ports.js";
export type { ErasedKind, ErasureView } from "./privacy/erase-person.js";
export { ERASURE_PARTS, erasePerson, eraseProfile } from "./privacy/erase-person.js";
export type {
  ExportedConsentChange,
  ExportedMessage,
  ExportedProfile,
  PersonExport,
} from "./privacy/export-person.js";
export { EXPORT_PARTS, exportPerson, exportProfile } from "./privacy/export-person.js";
export type { PersonMatch } from "./privacy/privacy-input.js";
export { personMatchInput } from "./privacy/privacy-input.js";
export type { ConsentChangeView } from "./profiles/consent-history.js";
export { getConsentHistory } from "./profiles/consent-history.js";
export type { ContactListView } from "./profiles/contact-lists.js";
export {
  addProfilesToList,
  listContactListMembers,
  listContactLists,
  listProfileContactLists,
  removeProfileFromList,
} from "./profiles/contact-lists.js";
export { createProfile } from "./profiles/create-profile.js";
export { deleteProfile } from "./profiles/delete-profile.js";
export { findOrCreateProfileByPhone } from "./profiles/ensure-profile.js";
export { getProfile } from "./profiles/get-profile.js";
export type { ImportRow, ImportSummary } from "./profiles/import-profiles.js";
export { importProfiles } from "./profiles/import-profiles.js";
export type { Page } from "./profiles/list-profiles.js";
export {
  DEFAULT_PAGE_SIZE,
  listProfiles,
  listProfilesQuery,
  MAX_PAGE_SIZE,
} from "./profiles/list-profiles.js";
export { normalizePhone } from "./profiles/phone.js";
export { createProfileInput, updateProfileInput } from "./profiles/profile-input.js";
export type { ProfileView } from "./profiles/profile-view.js";
export { toProfileView } from "./profiles/profile-view.js";
export { updateProfile } from "./profiles/update-profile.js";
export type {
  CallbackApp,
  CallbackLogger,
  CallbackRefusal,
  CallbackRequest,
  CallbackResponse,
  CallbackRoute,
} from "./providers/callback-app.js";
export {
  bodyText,
  callbackApp,
  emptyAnswer,
  headerOf,
  MAX_CALLBACK_BYTES,
  postRoutes,
  receiveInbound,
} from "./providers/callback-app.js";
export type { ProvidersByChannel } from "./providers/channel-router.js";
export { channelRouter } from "./providers/channel-router.js";
export type {
  CircuitBreaker,
  CircuitBreakerOptions,
  CircuitState,
} from "./providers/circuit-breaker.js";
export { circuitBreaker } from "./providers/circuit-breaker.js";
export type { CredentialsCheck } from "./providers/credentials-check.js";
export { checkByRead } from "./providers/credentials-check.js";
export type { FailoverMember, FailoverOptions } from "./providers/failover-provider.js";
export { failoverProvider } from "./providers/failover-provider.js";
export { guardedProvider } from "./providers/guarded-provider.js";
export type {
  HttpProviderOptions,
  HttpProviderSpec,
  ProviderAcceptance,
  ProviderErrorSaid,
  ProviderHttpAnswer,
  ProviderHttpRequest,
  ProviderIdentity,
  ProviderTransport,
} from "./providers/http-provider.js";
export { httpProvider, PROVIDER_TIMEOUT_MS } from "./providers/http-provider.js";
export type { ProviderLimits } from "./providers/provider-limits.js";
export { clampTtl, textLength, textOverLimit } from "./providers/provider-limits.js";
export type { ProviderLogger } from "./providers/provider-logger.js";
export type {
  ProviderHost,
  ProviderPlugin,
  ProviderRoutesHost,
  SettingDeclaration,
  SettingsReader,
} from "./providers/provider-plugin.js";
export { apiOriginSetting, settingsReader } from "./providers/provider-plugin.js";
export type { ProviderRequestSeen } from "./providers/provider-span.js";
export {
  inProviderRequestSpan,
  noteProviderOutcome,
  PROVIDER_SPAN_ATTRIBUTES,
  providerRequestWatch,
} from "./providers/provider-span.js";
export type { RequestFailure } from "./providers/request-failure.js";
export { requestFailure, requestFailureMessage } from "./providers/request-failure.js";
export { retryAfterMs } from "./providers/retry-after.js";
export type { CredentialsRefusalOptions } from "./providers/upstream-answers.js";
export {
  credentialsRefusal,
  firstHeader,
  jsonOrEmpty,
  UNAUTHORIZED_LOG_EVERY_MS,
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
} from "./providers/upstream-answers.js";
export type { UpstreamErrorCode } from "./providers/upstream-errors.js";
export { upstreamError } from "./providers/upstream-errors.js";
export type { UpstreamRetryOptions, UpstreamTry } from "./providers/upstream-retry.js";
export { backoffMs, withUpstreamRetries } from "./providers/upstream-retry.js";
export type { Verified } from "./providers/verified.js";
export { verifiedOk, verifyTimestamped } from "./providers/verified.js";
export { destinationRefusal } from "./rate-limit/destination-counters.js";
export {
  checkSendRateLimit,
  checkWebhookTestRateLimit,
  rateLimitedError,
  rateLimitHeaders,
  retryAfterSeconds,
  sendRateLimitKey,
  webhookTestRateLimitKey,
} from "./rate-limit/send-rate-limit.js";
export type { RetentionClock, RetentionTime } from "./retention/retention-clock.js";
export { retentionClock } from "./retention/retention-clock.js";
export type {
  RetentionRound,
  RetentionSweeper,
  RetentionSweepOptions,
} from "./retention/retention-sweep.js";
export { createRetentionSweeper, RATE_LIMIT_HIT_HORIZON_MS } from "./retention/retention-sweep.js";
export { numberCountry, recipientZones } from "./schedule/recipient-zones.js";
export type { HolidayCheck, Interval, ReleaseQuery } from "./schedule/release-time.js";
export { insideWindow, RELEASE_HORIZON_MS, releaseTime } from "./schedule/release-time.js";
export type { ScheduleDecision, ScheduleQuery } from "./schedule/schedule-decision.js";
export { decideSchedule, noSendingTime } from "./schedule/schedule-decision.js";
export type {
  SendingWindow,
  SendingWindowInput,
  SendingWindowView,
  Weekday,
} from "./schedule/sending-window.js";
export {
  RECOMMENDED_SENDING_WINDOW,
  sendingWindowInput,
  toSendingWindow,
  toSendingWindowView,
  WEEKDAYS,
} from "./schedule/sending-window.js";
export { isTimeZone } from "./schedule/zone-offsets.js";
export { aesGcmSecretBox, generateSecretKey, parseSecretKey } from "./secrets/secret-box.js";
export type { Destination } from "./settings/destination.js";
export { destinationOf } from "./settings/destination.js";
export { numberHash } from "./settings/number-hash.js";
export type { Admission } from "./settings/send-gate.js";
export { admitSend, checkDestination, destinationCounters } from "./settings/send-gate.js";
export type { SettingsView } from "./settings/settings.js";
export {
  DEFAULT_BLOCKED_NUMBER_TYPES,
  defaultSettings,
  getSettings,
  RECOMMENDED_LIMITS,
  readSettings,
  toSettingsView,
  updateSettings,
} from "./settings/settings.js";
export type { SettingsCache } from "./settings/settings-cache.js";
export { cachingSettings } from "./settings/settings-cache.js";
export type { UpdateSettingsInput } from "./settings/settings-input.js";
export { NUMBER_TYPES, REGIONS, updateSettingsInput } from "./settings/settings-input.js";
export type { ManualClock } from "./support/clock.js";
export { isoAt, manualClock, systemClock } from "./support/clock.js";
export { closestName, editDistance } from "./support/closest-name.js";
export { createIds, isPrefixedId, isUuidV7 } from "./support/ids.js";
export { isJsonObject } from "./support/json-object.js";
export type { NoticedMemoryOptions } from "./support/noticed-memory.js";
export { parseInput, toIssues } from "./support/parse.js";
export { StorageBusyError } from "./support/storage-busy.js";
export type {
  StorageFaultOutcome,
  StorageFaultReason,
  StorageHealth,
  StorageHealthChange,
  StorageHealthTracker,
} from "./support/storage-faults.js";
export {
  isStorageUnavailable,
  markNothingWritten,
  StorageUnavailableError,
  storageHealth,
  wroteNothing,
} from "./support/storage-faults.js";
export { tracingEnabled } from "./support/tracing.js";
export type { Transact } from "./support/transaction.js";
export { isErrResult, rollingBackErrors } from "./support/transaction.js";
export { parseUrl } from "./support/url.js";
export type { AttemptReport, AttemptResult } from "./webhooks/attempt-delivery.js";
export { makeAttempt, RESPONSE_BODY_LIMIT } from "./webhooks/attempt-delivery.js";
export type { ResolvedDestination } from "./webhooks/delivery-destination.js";
export { destinationKey, resolveDestination } from "./webhooks/delivery-destination.js";
export type {
  DeliveryEngine,
  DeliveryEngineOptions,
  DeliveryLogEntry,
} from "./webhooks/delivery-engine.js";
export { createDeliveryEngine } from "./webhooks/delivery-engine.js";
export {
  getDelivery,
  listDeliveries,
  listDeliveriesOfQuery,
  listDeliveriesQuery,
  listMessageDeliveries,
  listWebhookDeliveries,
} from "./webhooks/delivery-log.js";
export type {
  DeliveryAttemptView,
  DeliveryStatusView,
  DeliveryView,
  DeliveryWithAttemptsView,
} from "./webhooks/delivery-view.js";
export { toAttemptView, toDeliveryView } from "./webhooks/delivery-view.js";
export type { EventBody, EventData, TestEventData } from "./webhooks/event-body.js";
export { messageEventBody, testEventBody } from "./webhooks/event-body.js";
export type { FailingDestinationView } from "./webhooks/failing-destinations.js";
export {
  FAILING_DESTINATIONS_SCAN,
  listFailingDestinations,
} from "./webhooks/failing-destinations.js";
export { recordEvent, routeEvent } from "./webhooks/outbox.js";
export type { RecoverResult } from "./webhooks/redeliver.js";
export { recoverWebhook, recoverWebhookInput, redeliverDelivery } from "./webhooks/redeliver.js";
export type {
  IncomingHeaders,
  VerifiedWebhook,
  VerifyWebhookOptions,
  WebhookHeadersInput,
  WebhookRefusal,
  WebhookRejection,
  WebhookVerification,
} from "./webhooks/signing.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  signPayload,
  verifyWebhook,
  WEBHOOK_USER_AGENT,
  webhookHeaders,
} from "./webhooks/signing.js";
export type { SubscriptionCache } from "./webhooks/subscription-cache.js";
export { cachingSubscriptions } from "./webhooks/subscription-cache.js";
export { MAX_ACTIVE_WEBHOOKS, MAX_WEBHOOK_SUBSCRIPTIONS } from "./webhooks/subscription-rules.js";
export type { WebhookList } from "./webhooks/subscriptions.js";
export {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
} from "./webhooks/subscriptions.js";
export type { WebhookTestResult } from "./webhooks/test-webhook.js";
export { testWebhook } from "./webhooks/test-webhook.js";
export { updateWebhook } from "./webhooks/update-webhook.js";
export type { CreateWebhookInput, UpdateWebhookInput } from "./webhooks/webhook-input.js";
export {
  createWebhookInput,
  MESSAGE_TOPICS,
  TOPICS,
  testWebhookInput,
  updateWebhookInput,
} from "./webhooks/webhook-input.js";
export type { WebhookView, WebhookWithSecret } from "./webhooks/webhook-view.js";
export { toWebhookView } from "./webhooks/webhook-view.js";
