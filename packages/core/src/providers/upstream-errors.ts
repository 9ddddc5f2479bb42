import type { MessageError } from "../ports.js";

/**
 * The codes of a message's `error` when a real upstream is behind it (docs/api.md "Errors"):
 * refused at send, reported failed later, unreachable (or timed out, or a 5xx), and
 * credentials refused.
 */
export type UpstreamErrorCode =
  | "upstream_rejected"
  | "upstream_failed"
  | "upstream_unavailable"
  | "upstream_unauthorized";

/** A message error from `provider`, with its own code (a number is turned into a string). */
export const upstreamError = (
  code: UpstreamErrorCode,
  message: string,
  provider: string,
  providerCode: string | number | null = null,
): MessageError => ({
  code,
  message,
  provider,
  provider_code: providerCode === null ? null : String(providerCode),
});
