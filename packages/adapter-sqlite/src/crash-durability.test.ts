import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import type { CrashAck } from "./testing/crash-writer.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const writer = fileURLToPath(new URL("./testing/crash-writer.ts", import.meta.url));
// The writer imports `@tidings/core`; the workspace tsconfig maps it to the sources.
const tsconfig = fileURLToPath(new URL("../../../tsconfig.json", import.meta.url));

/**
 * Runs the writer until it has acknowledged `acks` successes, lets it run a random few more
 * milliseconds (so the kill lands anywhere: mid-transaction, mid-delivery, mid-report), then
 * SIGKILLs it. Resolves with every acknowledgement it printed.
 */
function writeUntilKilled(path: string, acks: number, subscribed: boolean): Promise<CrashAck[]> {
  return new Promise((resolve, reject) => {
    const args = ["--import", "tsx", writer, path, subscribed ? "subscribed" : "unsubscribed"];
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
    });
    let buffered = "";
    let errors = "";
    let aiming = false;
    // A writer that never prints its acknowledgements is killed too, and the test says so.
    const stuck = setTimeout(() => {
      reject(
        new Error(`the writer printed fewer than ${acks} acknowledgements in 60 s: ${errors}`),
      );
      child.kill("SIGKILL");
    }, 60_000);
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      if (aiming || buffered.split("\n").length <= acks) return;
      aiming = true;
      setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 20));
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      clearTimeout(stuck);
      if (signal !== "SIGKILL") reject(new Error(`writer ended without being killed: ${errors}`));
      // Only complete lines are acknowledgements.
      else
        resolve(
          buffered
            .split("\n")
            .slice(0, -1)
            .map((line) => JSON.parse(line) as CrashAck),
        );
    });
  });
}

/** Rows a query returns; each check below lists the rows that break its rule, so none is `[]`. */
const rows = (db: Database.Database, sql: string): unknown[] => db.prepare(sql).all();

const ids = (db: Database.Database, sql: string): Set<string> =>
  new Set((db.prepare(sql).all() as Array<{ id: string }>).map((r) => r.id));

/** Messages whose events must each have a delivery: a webhook_url, or an active subscription. */
const HAS_DESTINATION = `(m.webhook_url IS NOT NULL OR EXISTS (
  SELECT 1 FROM webhook_subscriptions w
  WHERE w.organization_id = m.organization_id AND w.status = 'active'))`;

/** Checks what a crashed writer left behind, with a read-only connection. */
function expectConsistentAfterCrash(path: string, acknowledged: CrashAck[], label: string): void {
  const db = new Database(path, { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true }), label).toBe("ok");
    expect(db.pragma("foreign_key_check"), label).toEqual([]);

    const profiles = ids(db, "SELECT id FROM profiles WHERE status = 'active'");
    const messages = ids(db, "SELECT id FROM messages");
    const lost = acknowledged.filter((ack) =>
      ack.kind === "profile" ? !profiles.has(ack.id) : !messages.has(ack.id),
    );
    expect(lost, `${label}: acknowledged but not stored`).toEqual([]);

    // A send's profile, message, message.sent event and deliveries commit together.
    expect(
      rows(
        db,
        `SELECT m.id FROM messages m WHERE NOT EXISTS (
           SELECT 1 FROM message_events e WHERE e.message_id = m.id AND e.topic = 'message.sent')
         OR NOT EXISTS (SELECT 1 FROM profiles p WHERE p.id = m.profile_id)`,
      ),
      `${label}: messages without their message.sent event or profile`,
    ).toEqual([]);
    // A report's status change commits with its event.
    expect(
      rows(
        db,
        `SELECT m.id, m.status FROM messages m WHERE m.status <> 'sent' AND NOT EXISTS (
           SELECT 1 FROM message_events e
           WHERE e.message_id = m.id AND e.topic = 'message.' || m.status)`,
      ),
      `${label}: messages whose status has no event`,
    ).toEqual([]);
    // Every event of a message with somewhere to go has its outbox delivery, to the right kind
    // of destination; events with nowhere to go have none.
    expect(
      rows(
        db,
        `SELECT e.id, e.topic FROM message_events e JOIN messages m ON m.id = e.message_id
         WHERE ${HAS_DESTINATION} AND NOT EXISTS (
           SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.destination ->> '$.kind' =
             CASE WHEN m.webhook_url IS NULL THEN 'subscription' ELSE 'message' END)`,
      ),
      `${label}: events without their delivery`,
    ).toEqual([]);
    expect(
      rows(
        db,
        `SELECT e.id FROM message_events e JOIN messages m ON m.id = e.message_id
         WHERE NOT ${HAS_DESTINATION}
         AND EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)`,
      ),
      `${label}: events delivered with no destination`,
    ).toEqual([]);
    // The receivers answer 200, so a delivery is either still due or delivered.
    expect(
      rows(db, "SELECT id, status FROM deliveries WHERE status NOT IN ('pending', 'delivered')"),
      `${label}: deliveries neither due nor delivered`,
    ).toEqual([]);
  } finally {
    db.close();
  }
}

/** Pending deliveries are still due: once any dead writer's lease ends, a claim takes them all. */
async function expectPendingStillDue(path: string, label: string): Promise<void> {
  const storage = sqliteStorage(path);
  try {
    const reader = new Database(path, { readonly: true });
    const pending = ids(reader, "SELECT id FROM deliveries WHERE status = 'pending'");
    reader.close();
    const later = new Date(Date.now() + 10 * 60_000).toISOString();
    const undo = new Error("only looking");
    let claimed: string[] = [];
    // Claimed in a transaction that rolls back, so the next round finds the leases as they were.
    await storage
      .transaction(async (tx) => {
        claimed = (await tx.deliveries.claimDue(later, 100_000, "crash-check", 1_000)).map(
          (d) => d.id,
        );
        throw undo;
      })
      .catch((error: unknown) => {
        if (error !== undo) throw error;
      });
    expect(new Set(claimed), `${label}: pending deliveries that cannot be claimed`).toEqual(
      pending,
    );
  } finally {
    await storage.close();
  }
}

describe("durability under SIGKILL", () => {
  it("every acknowledged profile and message survives a kill at a random moment, no send or report is half-written, and every event is still due or delivered", async () => {
    const file = tempDatabaseFile();
    const acknowledged: CrashAck[] = [];
    try {
      for (let round = 0; round < 4; round++) {
        const target = 5 + Math.floor(Math.random() * 200);
        // The first writer's organization has no subscription: only webhook_url messages
        // produce deliveries there.
        const acks = await writeUntilKilled(file.path, target, round > 0);
        expect(acks.length).toBeGreaterThanOrEqual(target);
        expect(acks.some((ack) => ack.kind === "message")).toBe(true);
        acknowledged.push(...acks);
        const label = `round ${round}, killed after ${target} acks`;
        expectConsistentAfterCrash(file.path, acknowledged, label);
        await expectPendingStillDue(file.path, label);
      }
    } finally {
      file.remove();
    }
    // Four writer processes, each started through tsx: about 15 s alone, several times that on
    // a machine busy with other work. Each writer has its own one-minute bound above.
  }, 240_000);
});
