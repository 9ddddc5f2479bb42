import type { ConsoleSessionRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { ms, storeNew } from "./state.js";

/** Console sign-in tokens and sessions in memory. */
export function memoryConsoleSessions(scope: MemoryScope): ConsoleSessionRepository {
  return {
    insertSignInToken: (token) =>
      scope.write("consoleSessions.insertSignInToken", (s) =>
        storeNew(s.consoleSignInTokens, token.tokenHash, token, "console sign-in token"),
      ),
    findSignInToken: (tokenHash, now) =>
      scope.read("consoleSessions.findSignInToken", (s) => {
        const token = s.consoleSignInTokens.get(tokenHash);
        return token && ms(token.expiresAt) > ms(now) ? token : null;
      }),
    spendSignInToken: (tokenHash, now) =>
      scope.write("consoleSessions.spendSignInToken", (s) => {
        const token = s.consoleSignInTokens.get(tokenHash);
        if (!token || ms(token.expiresAt) <= ms(now)) return null;
        s.consoleSignInTokens.delete(tokenHash);
        return token;
      }),
    insertSession: (session) =>
      scope.write("consoleSessions.insertSession", (s) =>
        storeNew(s.consoleSessions, session.idHash, session, "console session"),
      ),
    findSession: (idHash, now) =>
      scope.read("consoleSessions.findSession", (s) => {
        const session = s.consoleSessions.get(idHash);
        return session && ms(session.expiresAt) > ms(now) ? session : null;
      }),
    touchSession: (idHash, lastSeenAt, expiresAt) =>
      scope.write("consoleSessions.touchSession", (s) => {
        const session = s.consoleSessions.get(idHash);
        if (!session || ms(session.expiresAt) <= ms(lastSeenAt)) return false;
        const later = (a: string, b: string) => (ms(a) >= ms(b) ? a : b);
        s.consoleSessions.set(idHash, {
          ...session,
          lastSeenAt: later(session.lastSeenAt, lastSeenAt),
          expiresAt: later(session.expiresAt, expiresAt),
        });
        return true;
      }),
    deleteSession: (idHash) =>
      scope.write("consoleSessions.deleteSession", (s) => s.consoleSessions.delete(idHash)),
    deleteOrganizationSessions: (organizationId) =>
      scope.write("consoleSessions.deleteOrganizationSessions", (s) => {
        let ended = 0;
        for (const [hash, session] of s.consoleSessions) {
          if (session.organizationId !== organizationId) continue;
          s.consoleSessions.delete(hash);
          ended += 1;
        }
        for (const [hash, token] of s.consoleSignInTokens) {
          if (token.organizationId === organizationId) s.consoleSignInTokens.delete(hash);
        }
        return ended;
      }),
  };
}
