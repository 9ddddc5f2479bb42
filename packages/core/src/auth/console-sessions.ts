import { createHash, timingSafeEqual } from "node:crypto";
import { err, ok, type ResultAsync } from "neverthrow";
import type { Deps } from "../deps.js";
import { type DomainError, notFound, validationError } from "../errors.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { hashKeySecret, randomSecret } from "./key-secret.js";

/** A console session ends after this long without a request (12 h). */
export const CONSOLE_IDLE_MS = 12 * 60 * 60 * 1000;
/** Default lifetime of a sign-in link, in minutes. */
export const SIGN_IN_LINK_DEFAULT_MINUTES = 15;
/** Longest lifetime of a sign-in link, in minutes (a day). */
export const SIGN_IN_LINK_MAX_MINUTES = 1440;
/**
 * A session's expiry is moved at most once a minute, so a page with many requests writes
 * once, not per request; the idle limit is still kept to the minute.
 */
const TOUCH_EVERY_MS = 60_000;

/** A sign-in link's token, shown once to whoever asked for the link. */
export interface SignInToken {
  token: string;
  organization_id: string;
  expires_at: string;
}

/** A live console session, as the console sees it on each request. */
export interface ConsoleSession {
  organizationId: string;
  /** Proves a form was rendered for this session; derived, so nothing more is stored. */
  csrfToken: string;
  expiresAt: string;
}

/** Tokens and session ids are 256 random bits; hashing them with SHA-256 is enough (see key-secret). */
const hashOf = (secret: string): Promise<string> => hashKeySecret(secret);

/** Only well-formed secrets (43 base64url characters) reach storage. */
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/**
 * The CSRF token of a session: a digest of its id under a fixed label, so it is known only to
 * whoever holds the cookie, and a form from another site cannot carry it.
 */
export function csrfTokenOf(sessionId: string): string {
  return createHash("sha256").update(`tidings-console-csrf:${sessionId}`).digest("base64url");
}

/** Whether `given` is the session's CSRF token, compared in constant time. */
export function isCsrfToken(sessionId: string, given: string | null | undefined): boolean {
  if (typeof given !== "string") return false;
  const expected = Buffer.from(csrfTokenOf(sessionId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Creates a one-time sign-in token for an organization's console, valid `ttlMinutes`. */
export function createSignInToken(
  deps: Pick<Deps, "storage" | "clock">,
  organizationId: string,
  ttlMinutes: number = SIGN_IN_LINK_DEFAULT_MINUTES,
): ResultAsync<SignInToken, DomainError> {
  return useCase("createSignInToken", async () => {
    if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > SIGN_IN_LINK_MAX_MINUTES) {
      return err(
        validationError([
          {
            path: "ttl_minutes",
            message: `must be a whole number from 1 to ${SIGN_IN_LINK_MAX_MINUTES}.`,
          },
        ]),
      );
    }
    if (!(await deps.storage.organizations.get(organizationId))) {
      return err(notFound("organization", organizationId, "organization_not_found"));
    }
    const token = randomSecret(32);
    const now = deps.clock.now();
    const expiresAt = isoAt(now + ttlMinutes * 60_000);
    await deps.storage.consoleSessions.insertSignInToken({
      tokenHash: await hashOf(token),
      organizationId,
      createdAt: isoAt(now),
      expiresAt,
    });
    return ok({ token, organization_id: organizationId, expires_at: expiresAt });
  });
}

/** Whether a sign-in token can still be spent; looking does not spend it. */
export async function isSignInTokenValid(
  deps: Pick<Deps, "storage" | "clock">,
  token: string,
): Promise<boolean> {
  if (!WELL_FORMED.test(token)) return false;
  const now = isoAt(deps.clock.now());
  return (await deps.storage.consoleSessions.findSignInToken(await hashOf(token), now)) !== null;
}

/**
 * Spends a sign-in token and starts a session: the answer's `sessionId` goes in the cookie and
 * is stored only as a hash. `null` when the token is forged, spent or expired.
 */
export async function signIn(
  deps: Pick<Deps, "storage" | "clock">,
  token: string,
): Promise<{ sessionId: string; session: ConsoleSession } | null> {
  if (!WELL_FORMED.test(token)) return null;
  const tokenHash = await hashOf(token);
  const sessionId = randomSecret(32);
  const idHash = await hashOf(sessionId);
  const now = deps.clock.now();
  const expiresAt = isoAt(now + CONSOLE_IDLE_MS);
  const organizationId = await deps.storage.transaction(async (tx) => {
    const spent = await tx.consoleSessions.spendSignInToken(tokenHash, isoAt(now));
    if (spent === null) return null;
    await tx.consoleSessions.insertSession({
      idHash,
      organizationId: spent.organizationId,
      createdAt: isoAt(now),
      lastSeenAt: isoAt(now),
      expiresAt,
    });
    return spent.organizationId;
  });
  if (organizationId === null) return null;
  return { sessionId, session: { organizationId, csrfToken: csrfTokenOf(sessionId), expiresAt } };
}

/**
 * The live session behind a cookie, its idle expiry moved forward; `null` when the cookie is
 * unknown, signed out, revoked or idle for too long.
 */
export async function resumeSession(
  deps: Pick<Deps, "storage" | "clock">,
  sessionId: string,
): Promise<ConsoleSession | null> {
  if (!WELL_FORMED.test(sessionId)) return null;
  const idHash = await hashOf(sessionId);
  const now = deps.clock.now();
  const found = await deps.storage.consoleSessions.findSession(idHash, isoAt(now));
  if (found === null) return null;
  let expiresAt = found.expiresAt;
  if (now - Date.parse(found.lastSeenAt) >= TOUCH_EVERY_MS) {
    expiresAt = isoAt(now + CONSOLE_IDLE_MS);
    if (!(await deps.storage.consoleSessions.touchSession(idHash, isoAt(now), expiresAt))) {
      return null;
    }
  }
  return { organizationId: found.organizationId, csrfToken: csrfTokenOf(sessionId), expiresAt };
}

/** Ends the session behind a cookie (signing out); harmless when it already ended. */
export async function signOut(deps: Pick<Deps, "storage">, sessionId: string): Promise<void> {
  if (!WELL_FORMED.test(sessionId)) return;
  await deps.storage.consoleSessions.deleteSession(await hashOf(sessionId));
}

/** Ends every console session of an organization and voids its unspent sign-in links. */
export function revokeConsoleSessions(
  deps: Pick<Deps, "storage">,
  organizationId: string,
): ResultAsync<{ revoked: number }, DomainError> {
  return useCase("revokeConsoleSessions", async () => {
    if (!(await deps.storage.organizations.get(organizationId))) {
      return err(notFound("organization", organizationId, "organization_not_found"));
    }
    return ok({
      revoked: await deps.storage.consoleSessions.deleteOrganizationSessions(organizationId),
    });
  });
}
