import type { ConsoleSessionRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/**
 * Console sign-in tokens and sessions, but the touch of a session, which each database words
 * its own way; timestamps are fixed-width ISO text, so they compare as text. A token is spent
 * by the one DELETE that removes it.
 */
export function consoleSessionRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Omit<ConsoleSessionRepository, "touchSession">, A> {
  const tokens = access.table("consoleSignInTokens");
  const sessions = access.table("consoleSessions");
  return {
    insertSignInToken: (token) => tokens.insert(token),
    findSignInToken: (tokenHash, now) =>
      tokens.one("token_hash = ? AND expires_at > ?", [tokenHash, now]),
    spendSignInToken: (tokenHash, now) =>
      tokens.take("token_hash = ? AND expires_at > ?", [tokenHash, now]),
    insertSession: (session) => sessions.insert(session),
    findSession: (idHash, now) => sessions.one("id_hash = ? AND expires_at > ?", [idHash, now]),
    deleteSession: (idHash) =>
      access.map(sessions.delete("id_hash = ?", [idHash]), (deleted) => deleted === 1),
    deleteOrganizationSessions: (organizationId) =>
      access.inTurn(
        () => tokens.delete("organization_id = ?", [organizationId]),
        () => sessions.delete("organization_id = ?", [organizationId]),
        (_, ended) => ended,
      ),
  };
}
