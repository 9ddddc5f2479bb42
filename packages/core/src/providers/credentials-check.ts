/**
 * What a provider's cheapest authenticated read said about Tidings' credentials (`tidings
 * providers check`): accepted, refused, not reachable, or not checkable with what is configured.
 */
export interface CredentialsCheck {
  outcome: "ok" | "refused" | "unreachable" | "skipped";
  /** A sentence for the operator: what was read, or what went wrong (never a secret). */
  detail: string;
}
