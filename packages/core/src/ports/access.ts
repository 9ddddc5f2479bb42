/**
 * API keys and console sessions.
 * The conventions every port follows are in `../ports.ts`.
 */

export type Scope =
  | "profiles:read"
  | "profiles:write"
  | "messages:send"
  | "messages:read"
  | "webhooks:manage"
  | "campaigns:manage"
  | "settings:manage";

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** What the operator calls the key (e.g. "Checkout service"); shown in lists only. */
  name: string | null;
  /** SHA-256 digest of the key secret, `sha256$<digest b64url>` (see auth/key-secret.ts). */
  secretHash: string;
  /** The webhook signing secret, sealed by the `SecretBox`. */
  webhookSigningSecretSealed: string;
  scopes: Scope[];
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

/** A one-time console sign-in link's token, kept only as a hash until it is spent or expires. */
export interface ConsoleSignInTokenRecord {
  /** `sha256$<digest b64url>` of the token in the link; the token itself is never stored. */
  tokenHash: string;
  organizationId: string;
  createdAt: string;
  expiresAt: string;
}

/** A signed-in console session of one organization, kept only as a hash of its cookie. */
export interface ConsoleSessionRecord {
  /** `sha256$<digest b64url>` of the session id in the cookie. */
  idHash: string;
  organizationId: string;
  createdAt: string;
  /** The last request seen; the session ends `expiresAt`, an idle period after it. */
  lastSeenAt: string;
  expiresAt: string;
}

export interface ApiKeyRepository {
  insert(key: ApiKeyRecord): Promise<void>;
  /** By key id alone (authentication does not know the organization yet); `null` when unknown. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** The organization's keys, oldest first, revoked ones included. */
  list(organizationId: string): Promise<ApiKeyRecord[]>;
  /** Sets `revokedAt` once; `false` when unknown or already revoked. */
  revoke(id: string, at: string): Promise<boolean>;
}

/**
 * Console sign-in tokens and sessions. Both are looked up by the hash of their secret only, and
 * neither is scoped by organization on reads (the hash is the credential); a record whose
 * `expiresAt` is at or before `now` is treated as absent by every read.
 */
export interface ConsoleSessionRepository {
  insertSignInToken(token: ConsoleSignInTokenRecord): Promise<void>;
  /** The unspent token with this hash that expires after `now`, or `null`; reading never spends it. */
  findSignInToken(tokenHash: string, now: string): Promise<ConsoleSignInTokenRecord | null>;
  /**
   * Spends a token: removes it and answers it when it is unspent and expires after `now`, else
   * `null` and nothing is written. Of concurrent callers with the same hash, at most one gets it.
   */
  spendSignInToken(tokenHash: string, now: string): Promise<ConsoleSignInTokenRecord | null>;
  insertSession(session: ConsoleSessionRecord): Promise<void>;
  /** The session with this hash that expires after `now`, or `null`. */
  findSession(idHash: string, now: string): Promise<ConsoleSessionRecord | null>;
  /**
   * Moves a session's `lastSeenAt` and `expiresAt` forward (never back); `false` (nothing
   * written) when unknown, ended, or already expired at `lastSeenAt`.
   */
  touchSession(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean>;
  /** Ends one session; `false` when there was none. */
  deleteSession(idHash: string): Promise<boolean>;
  /** Ends every session of an organization (its sign-in tokens too); returns how many sessions. */
  deleteOrganizationSessions(organizationId: string): Promise<number>;
}
