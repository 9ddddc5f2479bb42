// @tidings/core: the domain and its ports. No I/O, no framework.
// Each line re-exports one module's public names explicitly.

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
export * from "./auth/console-sessions.js";
export { createOrganization } from "./auth/organizations.js";
export { isScope, requireScope, SCOPES } from "./auth/scopes.js";
// Added by server (CLI, runtime, examples); `export *` for the same reason as above.
export {
  DEFAULT_TTL_SECONDS,
  MAX_TEMPLATE_LENGTH,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
} from "./campaigns/campaign-input.js";
export * from "./campaigns/campaign-view.js";
// Added by adapter-http for the use cases it serves. `export *` on purpose: it cannot clash with
// an explicit line the owning area adds for the same module (the explicit one wins).
export * from "./campaigns/create-campaign.js";
export * from "./campaigns/get-campaign.js";
export type { FoundLink, LinkKind } from "./campaigns/link-detection.js";
export { findLink, KNOWN_SCHEMES, normalizeForLinkDetection } from "./campaigns/link-detection.js";
export { MAX_PLACEHOLDERS, parseTemplate, renderTemplate } from "./campaigns/template.js";
export * from "./campaigns/update-campaign.js";
export type { ParamsCampaign } from "./campaigns/viber-params.js";
export { VIBER_MAX_PARAM_LENGTH, validateParams } from "./campaigns/viber-params.js";
export type { Actor, Deps, TidingsConfig } from "./deps.js";
export { defaultConfig } from "./deps.js";
export type * from "./errors.js";
export { notFound, validationError } from "./errors.js";
export * from "./idempotency/with-idempotency.js";
export * from "./messages/expire-messages.js";
export * from "./messages/get-message.js";
export * from "./messages/message-counts.js";
export * from "./messages/message-view.js";
export * from "./messages/provider-report.js";
export * from "./messages/sandbox-provider.js";
export * from "./messages/send-input.js";
export * from "./messages/send-message.js";
export type * from "./ports.js";
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
export * from "./rate-limit/send-rate-limit.js";
export * from "./retention/retention-clock.js";
export * from "./retention/retention-sweep.js";
export * from "./secrets/secret-box.js";
export type { ManualClock } from "./shared/clock.js";
export { isoAt, manualClock, systemClock } from "./shared/clock.js";
export { createIds, isPrefixedId, isUuidV7 } from "./shared/ids.js";
export { parseInput, toIssues } from "./shared/parse.js";
export { StorageBusyError } from "./shared/storage-busy.js";
export type { Transact } from "./shared/transaction.js";
export { isErrResult, rollingBackErrors } from "./shared/transaction.js";
export * from "./webhooks/index.js";
export * from "./webhooks/signing.js";
