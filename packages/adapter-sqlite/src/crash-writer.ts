/**
 * The child process of the crash test: writes profiles to the SQLite file named by argv[2]
 * until it is killed, printing each profile's id only after its write was acknowledged.
 * Even-numbered profiles are written with a consent change in one transaction, so a reader can
 * tell whether a transaction was ever half-written.
 */
import { sqliteStorage } from "./sqlite-storage.js";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: crash-writer <database file>");
const storage = sqliteStorage(path);
const organizationId = `org_crash_${process.pid}`;
const now = new Date(Date.UTC(2026, 0, 1)).toISOString();

for (let i = 0; ; i++) {
  const profile = {
    id: `prf_${process.pid}_${i}`,
    organizationId,
    phoneNumber: `+3069${String(i).padStart(8, "0")}`,
    email: null,
    firstName: null,
    lastName: null,
    viberMarketingConsent: i % 2 === 0,
    smsMarketingConsent: false,
    attributes: { i },
    source: "api" as const,
    status: "active" as const,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  if (i % 2 === 0) {
    await storage.transaction(async (tx) => {
      await tx.profiles.insert(profile);
      await tx.consent.insert({
        id: `cc_${profile.id}`,
        organizationId,
        profileId: profile.id,
        channel: "viber",
        oldValue: null,
        newValue: true,
        apiKeyId: null,
        changedAt: now,
      });
    });
  } else {
    await storage.profiles.insert(profile);
  }
  // Writes to a pipe are synchronous on Linux: once this returns, the parent can read the id.
  process.stdout.write(`${profile.id}\n`);
}
