import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import { recordingDatabase } from "./testing/recording-database.js";

const PROFILES = 100_000;
const ORGANIZATIONS = 10;

/** 100,000 profiles over 10 organizations, every 10th deleted, 1,000 distinct emails. */
function seedProfiles(db: Database.Database): void {
  const insert = db.prepare(
    `INSERT INTO profiles (id, organization_id, phone_number, email, email_lower, first_name,
       last_name, viber_marketing_consent, sms_marketing_consent, attributes, source, status,
       created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, NULL, NULL, 0, 0, '{}', 'api', ?, ?, ?, ?)`,
  );
  // One transaction with one prepared statement: a second or so instead of minutes.
  db.transaction(() => {
    for (let i = 0; i < PROFILES; i++) {
      const deleted = i % 10 === 9;
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      const email = `Person${i % 1000}@Example.com`;
      insert.run(
        `prf_${String(i).padStart(26, "0")}`,
        `org_${i % ORGANIZATIONS}`,
        `+30690${String(i).padStart(7, "0")}`,
        email,
        email.toLowerCase(),
        deleted ? "inactive" : "active",
        at,
        at,
        deleted ? at : null,
      );
    }
  })();
}

describe("query plans with 100,000 profiles", () => {
  it("list, phone and email lookups use their indexes, before and after ANALYZE", async () => {
    const raw = new Database(":memory:");
    const recording = recordingDatabase(raw);
    const storage = sqliteStorage(recording.db);
    seedProfiles(raw);

    const organizationId = "org_3";
    const steps: Array<[string, () => Promise<unknown>, string]> = [
      [
        "list",
        () => storage.profiles.list({ organizationId, afterSeq: 50_000, limit: 51 }),
        "profiles_active_seq",
      ],
      [
        "list+phone",
        () => storage.profiles.list({ organizationId, phoneNumber: "+306900000003", limit: 51 }),
        "profiles_active_phone",
      ],
      [
        "list+email",
        () => storage.profiles.list({ organizationId, email: "person3@example.com", limit: 51 }),
        "profiles_active_email",
      ],
      [
        "findByPhone",
        () => storage.profiles.findByPhone(organizationId, "+306900000003"),
        "profiles_active_phone",
      ],
      [
        "findByEmail",
        () => storage.profiles.findByEmail(organizationId, "PERSON3@example.com", 2),
        "profiles_active_email",
      ],
    ];
    const plans = async (): Promise<Map<string, string>> => {
      const found = new Map<string, string>();
      for (const [label, call] of steps) {
        recording.label(label);
        await call();
        const last = recording.calls.findLast((c) => c.label === label);
        if (last === undefined) throw new Error(`nothing recorded for ${label}`);
        const rows = raw.prepare(`EXPLAIN QUERY PLAN ${last.sql}`).all(...last.params) as Array<{
          detail: string;
        }>;
        found.set(label, rows.map((row) => row.detail).join("\n"));
      }
      return found;
    };

    for (const analyzed of [false, true]) {
      if (analyzed) raw.exec("ANALYZE");
      const found = await plans();
      for (const [label, , index] of steps) {
        const plan = found.get(label) ?? "";
        expect(plan, `${label} (analyzed: ${analyzed})`).toContain(`INDEX ${index} `);
        expect(plan, label).not.toMatch(/^SCAN profiles$/m);
        expect(plan, label).not.toContain("TEMP B-TREE");
      }
    }

    // The answers are right too: org_3 holds i = 3, 13, 23, …; i % 10 === 9 never falls in it.
    const page = await storage.profiles.list({ organizationId, limit: 3 });
    expect(page.map((p) => p.id)).toEqual(
      [3, 13, 23].map((i) => `prf_${String(i).padStart(26, "0")}`),
    );
    const byEmail = await storage.profiles.findByEmail(organizationId, "PERSON3@EXAMPLE.COM", 100);
    expect(byEmail).toHaveLength(PROFILES / 1000);
    await storage.close();
    raw.close();
  });
});
