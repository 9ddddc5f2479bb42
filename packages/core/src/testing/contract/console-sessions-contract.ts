import { describe, expect, it } from "vitest";
import type { ConsoleSessionRecord, ConsoleSignInTokenRecord } from "../../ports.js";
import { at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

let counter = 0;
/** A distinct, well-formed hash for each record. */
function aHash(): string {
  counter += 1;
  return `sha256$${String(counter).padStart(43, "h")}`;
}

const aToken = (organizationId: string, expiresAt = at(10)): ConsoleSignInTokenRecord => ({
  tokenHash: aHash(),
  organizationId,
  createdAt: at(0),
  expiresAt,
});

const aSession = (organizationId: string, expiresAt = at(10)): ConsoleSessionRecord => ({
  idHash: aHash(),
  organizationId,
  createdAt: at(0),
  lastSeenAt: at(0),
  expiresAt,
});

/** Console sign-in tokens and sessions. */
export function consoleSessionsContract(harness: () => StorageHarness): void {
  describe("console sign-in tokens", () => {
    it("find reads an unexpired token without spending it; expired or unknown is null", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const token = aToken(org, at(5));
      await storage.consoleSessions.insertSignInToken(token);
      expect(await storage.consoleSessions.findSignInToken(token.tokenHash, at(4))).toEqual(token);
      expect(await storage.consoleSessions.findSignInToken(token.tokenHash, at(4))).toEqual(token);
      expect(await storage.consoleSessions.findSignInToken(token.tokenHash, at(5))).toBeNull();
      expect(await storage.consoleSessions.findSignInToken(aHash(), at(1))).toBeNull();
    });

    it("spend answers the token once; a second spend, or one after expiry, is null", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const token = aToken(org, at(5));
      const late = aToken(org, at(5));
      await storage.consoleSessions.insertSignInToken(token);
      await storage.consoleSessions.insertSignInToken(late);
      expect(await storage.consoleSessions.spendSignInToken(token.tokenHash, at(1))).toEqual(token);
      expect(await storage.consoleSessions.spendSignInToken(token.tokenHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.findSignInToken(token.tokenHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.spendSignInToken(late.tokenHash, at(5))).toBeNull();
    });

    it("of concurrent spends of one token, exactly one gets it", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const token = aToken(org);
      await storage.consoleSessions.insertSignInToken(token);
      const spends = await Promise.all(
        Array.from({ length: 5 }, () =>
          storage.transaction((tx) => tx.consoleSessions.spendSignInToken(token.tokenHash, at(1))),
        ),
      );
      expect(spends.filter((spent) => spent !== null)).toEqual([token]);
    });
  });

  describe("console sessions", () => {
    it("find reads a session until it expires", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const session = aSession(org, at(5));
      await storage.consoleSessions.insertSession(session);
      expect(await storage.consoleSessions.findSession(session.idHash, at(4))).toEqual(session);
      expect(await storage.consoleSessions.findSession(session.idHash, at(5))).toBeNull();
      expect(await storage.consoleSessions.findSession(aHash(), at(1))).toBeNull();
    });

    it("touch moves the idle expiry forward, never back, and not once expired", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const session = aSession(org, at(5));
      await storage.consoleSessions.insertSession(session);
      expect(await storage.consoleSessions.touchSession(session.idHash, at(3), at(8))).toBe(true);
      expect(await storage.consoleSessions.findSession(session.idHash, at(6))).toEqual({
        ...session,
        lastSeenAt: at(3),
        expiresAt: at(8),
      });
      expect(await storage.consoleSessions.touchSession(session.idHash, at(2), at(4))).toBe(true);
      expect(await storage.consoleSessions.findSession(session.idHash, at(6))).toMatchObject({
        lastSeenAt: at(3),
        expiresAt: at(8),
      });
      expect(await storage.consoleSessions.touchSession(session.idHash, at(8), at(20))).toBe(false);
      expect(await storage.consoleSessions.findSession(session.idHash, at(7))).toMatchObject({
        expiresAt: at(8),
      });
      expect(await storage.consoleSessions.touchSession(aHash(), at(1), at(20))).toBe(false);
    });

    it("delete ends one session; deleting it again is false", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const ended = aSession(org);
      const kept = aSession(org);
      await storage.consoleSessions.insertSession(ended);
      await storage.consoleSessions.insertSession(kept);
      expect(await storage.consoleSessions.deleteSession(ended.idHash)).toBe(true);
      expect(await storage.consoleSessions.deleteSession(ended.idHash)).toBe(false);
      expect(await storage.consoleSessions.findSession(ended.idHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.findSession(kept.idHash, at(1))).toEqual(kept);
    });

    it("deleteOrganizationSessions ends one organization's sessions and tokens only", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const a1 = aSession(orgA);
      const a2 = aSession(orgA);
      const b = aSession(orgB);
      const tokenA = aToken(orgA);
      const tokenB = aToken(orgB);
      for (const session of [a1, a2, b]) await storage.consoleSessions.insertSession(session);
      for (const token of [tokenA, tokenB]) await storage.consoleSessions.insertSignInToken(token);
      expect(await storage.consoleSessions.deleteOrganizationSessions(orgA)).toBe(2);
      expect(await storage.consoleSessions.findSession(a1.idHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.findSession(a2.idHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.findSignInToken(tokenA.tokenHash, at(1))).toBeNull();
      expect(await storage.consoleSessions.findSession(b.idHash, at(1))).toEqual(b);
      expect(await storage.consoleSessions.findSignInToken(tokenB.tokenHash, at(1))).toEqual(
        tokenB,
      );
    });

    it("retention.deleteExpiredConsoleSessions removes the tokens and sessions expired at `now`, and counts them", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const oldToken = aToken(org, at(2));
      const newToken = aToken(org, at(9));
      const oldSession = aSession(org, at(3));
      const newSession = aSession(org, at(9));
      await storage.consoleSessions.insertSignInToken(oldToken);
      await storage.consoleSessions.insertSignInToken(newToken);
      await storage.consoleSessions.insertSession(oldSession);
      await storage.consoleSessions.insertSession(newSession);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(3), 100)).toBe(2);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(3), 100)).toBe(0);
      expect(await storage.consoleSessions.findSignInToken(newToken.tokenHash, at(1))).toEqual(
        newToken,
      );
      expect(await storage.consoleSessions.findSession(newSession.idHash, at(1))).toEqual(
        newSession,
      );
      // Gone for good: even a `now` before their expiry no longer finds them.
      expect(await storage.consoleSessions.findSession(oldSession.idHash, at(0))).toBeNull();
      expect(await storage.consoleSessions.findSignInToken(oldToken.tokenHash, at(0))).toBeNull();
    });

    it("retention.deleteExpiredConsoleSessions deletes at most limit records per call, tokens and sessions together", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const tokens = [aToken(org, at(1)), aToken(org, at(1)), aToken(org, at(1))];
      const sessions = [aSession(org, at(1)), aSession(org, at(1))];
      for (const token of tokens) await storage.consoleSessions.insertSignInToken(token);
      for (const session of sessions) await storage.consoleSessions.insertSession(session);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(5), 2)).toBe(2);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(5), 2)).toBe(2);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(5), 2)).toBe(1);
      expect(await storage.retention.deleteExpiredConsoleSessions(at(5), 2)).toBe(0);
      for (const session of sessions) {
        expect(await storage.consoleSessions.findSession(session.idHash, at(0))).toBeNull();
      }
    });
  });
}
