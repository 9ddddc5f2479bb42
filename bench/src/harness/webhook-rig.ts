import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUrlPolicy, undiciWebhookTransport } from "@tidings/adapter-http";
import { migrate, postgresStorage, preparedStatements } from "@tidings/adapter-postgres";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import {
  aesGcmSecretBox,
  type createDeliveryEngine,
  createIds,
  type DeliveryRecord,
  defaultConfig,
  isoAt,
  type MessageRecord,
  messageEventBody,
  type Storage,
  systemClock,
  TOPICS,
} from "@tidings/core";
import { aDelivery } from "@tidings/core/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { type Database as DatabaseKind, dropSchema, PG_URL } from "./fixture.js";

/** A Viber OTP message of a benchmark's organization, as a send stores it: what events carry. */
export const benchMessage = (
  id: string,
  organizationId: string,
  at: string,
  status: MessageRecord["status"],
): MessageRecord => ({
  id,
  organizationId,
  apiKeyId: `key_bench${id.slice(0, 8)}`,
  campaignId: `cmp_bench${id.slice(0, 8)}`,
  profileId: `prf_bench${id.slice(0, 8)}`,
  phoneNumber: "+14155552671",
  category: "otp",
  channel: "viber",
  smsFallbackAllowed: false,
  sender: "Bench",
  body: "Your Acme code is 482913.",
  clientReference: "bench",
  webhookUrl: null,
  status,
  error: null,
  expiresAt: at,
  createdAt: at,
  updatedAt: at,
  viberProvider: "sandbox",
  viberProviderMessageId: null,
  smsProvider: null,
  smsProviderMessageId: null,
  fallbackDueAt: null,
  scheduledFor: null,
  smsSentFrom: null,
  viberLegNotes: null,
  smsLegNotes: null,
});

/** What the delivery engine needs (the core names it `AttemptDeps` but does not export it). */
export type AttemptDeps = Parameters<typeof createDeliveryEngine>[0];

/** The delivery engine's dependencies on a fresh database, with one subscription. */
export interface WebhookRig {
  deps: AttemptDeps;
  webhookId: string;
  secret: string;
  /** Queues `count` due deliveries of `message.delivered` in one transaction; their ids. */
  queue(count: number): Promise<string[]>;
  /** Cancels whatever a run left pending (one that hit its timeout), so the next starts clean. */
  cancelPending(): Promise<number>;
  /** A delivery's id and exact body, for the plain loop. */
  bodies(count: number): Array<{ id: string; payload: string }>;
  close(): Promise<void>;
}

/**
 * Retries come after 1 s, then at most 2 s, so the failing-receiver run measures how the engine
 * drains rather than how long the production schedule (30 s doubling) waits.
 */
export const BENCH_BACKOFF = { webhookBackoffBaseMs: 1000, webhookBackoffCapMs: 2000 };

/** A fresh storage of the kind asked for, and what removes it. */
async function openStorage(
  database: DatabaseKind,
): Promise<{ storage: Storage; remove: () => Promise<void> }> {
  if (database === "postgres") {
    // As `tidings serve` opens it: a pool, its own schema, named statements.
    const schema = `tidings_bench_hooks_${randomBytes(4).toString("hex")}`;
    const pool = new pg.Pool({ connectionString: PG_URL });
    await migrate(pool, { schema });
    const storage = postgresStorage(preparedStatements(pool), { schema });
    return {
      storage,
      async remove() {
        await storage.close();
        await pool.end();
        await dropSchema(schema);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "tidings-bench-hooks-"));
  const db = new Database(join(dir, "tidings.db"));
  const storage = sqliteStorage(db);
  return {
    storage,
    async remove() {
      await storage.close();
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the rig: storage (a SQLite file, or a schema of the benchmarks' PostgreSQL), the undici
 * transport (dev policy: loopback allowed), secrets.
 */
export async function openWebhookRig(
  receiverUrl: string,
  database: DatabaseKind = "sqlite",
): Promise<WebhookRig> {
  const { storage, remove } = await openStorage(database);
  const ids = createIds();
  const secretBox = aesGcmSecretBox(randomBytes(32));
  const urlPolicy = createUrlPolicy({ dev: true });
  const transport = undiciWebhookTransport({ urlPolicy });
  const deps: AttemptDeps = {
    storage,
    clock: systemClock,
    secretBox,
    transport,
    config: { ...defaultConfig, ...BENCH_BACKOFF },
  };
  const at = isoAt(Date.now());
  const organizationId = ids.prefixed("org");
  await storage.organizations.insert({ id: organizationId, name: "Bench", createdAt: at });
  const webhookId = ids.prefixed("whk");
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  await storage.webhooks.insert({
    id: webhookId,
    organizationId,
    url: receiverUrl,
    topics: [...TOPICS],
    status: "active",
    description: "bench receiver",
    secretSealed: secretBox.seal(secret),
    disabledReason: null,
    failingSince: null,
    createdAt: at,
    updatedAt: at,
  });
  const message = benchMessage(ids.uuidv7(), organizationId, at, "delivered");
  const delivery = (now: string): DeliveryRecord => {
    const id = ids.uuidv7();
    return aDelivery({
      id,
      organizationId,
      eventId: ids.uuidv7(),
      topic: "message.delivered",
      destination: { kind: "subscription", webhookId },
      payload: messageEventBody(
        id,
        "message.delivered",
        now,
        { ...message, id: ids.uuidv7() },
        null,
      ),
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
  };
  return {
    deps,
    webhookId,
    secret,
    async queue(count) {
      const now = isoAt(Date.now());
      const made = Array.from({ length: count }, () => delivery(now));
      await storage.transaction(async (tx) => {
        for (const d of made) await tx.deliveries.insert(d);
      });
      return made.map((d) => d.id);
    },
    cancelPending: () =>
      storage.deliveries.cancelForSubscription(organizationId, webhookId, isoAt(Date.now())),
    bodies(count) {
      const now = isoAt(Date.now());
      return Array.from({ length: count }, () => {
        const d = delivery(now);
        return { id: d.id, payload: d.payload };
      });
    },
    async close() {
      await transport.close();
      await remove();
    },
  };
}
