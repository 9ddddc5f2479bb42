// @tidings/client: the typed client of the Tidings API, on fetch and Web Crypto alone.
// Each line re-exports one module's names.

export type { IdempotentRequestOptions, RequestOptions, TidingsOptions } from "./client.js";
export { Tidings } from "./client.js";
export type {
  ClientErrorCode,
  ServerErrorCode,
  TidingsConflict,
  TidingsErrorCode,
  TidingsIssue,
} from "./errors.js";
export { TidingsError } from "./errors.js";
export type { components, operations, paths } from "./generated/api.js";
export { PageIterator } from "./pagination.js";
export type * from "./types.js";
export type {
  VerifyWebhookOptions,
  WebhookHeaders,
  WebhookRefusal,
  WebhookVerification,
} from "./verify-webhook.js";
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook } from "./verify-webhook.js";
