import {
  analyzeNewTables,
  boundedPoolOptions,
  DEFAULT_SCHEMA,
  keyNoticeHeartbeat,
  listenForDeliveries,
  listenForKeyChanges,
  migrate,
  postgresStorage,
  preparedStatements,
  scheduledMessageCount,
  webhookBacklog,
} from "@tidings/adapter-postgres";
import {
  cachingApiKeys,
  cachingCampaigns,
  cachingSettings,
  cachingSubscriptions,
  type Storage,
} from "@tidings/core";
import pg from "pg";
import { DEFAULT_STORAGE_TIMEOUT_MS } from "../config.js";
import type { Logger } from "../logger.js";
import type { OpenedStorage } from "./opened-storage.js";

/** How long a process keeps a verified API key or a campaign in memory unless the URL says otherwise. */
const KEY_MEMORY_MS = 5_000;

/**
 * Tidings' own parameters of the URL, taken out before it reaches `pg`: `?schema=NAME` puts
 * every table in that schema (default `public`), so several deployments can share one
 * database; `?prepared_statements=false` runs every statement unnamed, for a connection pooler
 * in transaction mode that cannot keep prepared statements (PgBouncer before 1.21, or with
 * `max_prepared_statements = 0`), and keeps no API key in memory (such a pooler delivers no
 * notices); `?key_memory_ms=N` is how long a verified API key, and a campaign, is kept (5000;
 * `0` keeps none).
 */
export function splitOptions(url: string): {
  connectionString: string;
  schema: string | undefined;
  prepared: boolean;
  keyMemoryMs: number;
} {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? undefined;
  const prepared = parsed.searchParams.get("prepared_statements") !== "false";
  // Checked with the rest of the configuration (`parseDatabaseUrl`).
  const memory = parsed.searchParams.get("key_memory_ms");
  parsed.searchParams.delete("schema");
  parsed.searchParams.delete("prepared_statements");
  parsed.searchParams.delete("key_memory_ms");
  return {
    connectionString: parsed.toString(),
    schema,
    prepared,
    keyMemoryMs: !prepared ? 0 : memory === null ? KEY_MEMORY_MS : Number(memory),
  };
}

/** Memory kept true by change notices: API keys, campaigns, subscriptions. */
interface NoticedCache {
  forget(id: string | null): void;
  trust(trusted: boolean): void;
}

/** `database` with keys, campaigns and subscriptions kept for `ms`; `null` when 0. */
function memoriesOf(
  database: Storage,
  ms: number,
): { storage: Storage; kept: NoticedCache[] } | null {
  if (ms <= 0) return null;
  const keys = cachingApiKeys(database, { ttlMs: ms });
  const campaigns = cachingCampaigns(keys.storage, { ttlMs: ms });
  const subscriptions = cachingSubscriptions(campaigns.storage, { ttlMs: ms });
  const settings = cachingSettings(subscriptions.storage, { ttlMs: ms });
  return { storage: settings.storage, kept: [keys, campaigns, subscriptions, settings] };
}

/**
 * Keeps `memories` true: each forgets every key or campaign whose change is announced, and
 * trusts its memory only while the heartbeat's own notices come back. Resolves to what stops
 * both.
 */
async function listenForChanges(
  pool: pg.Pool,
  schema: string | undefined,
  memories: readonly NoticedCache[],
  logger: Logger | undefined,
): Promise<() => Promise<void>> {
  const keys: NoticedCache = {
    forget: (id) => {
      for (const memory of memories) memory.forget(id);
    },
    trust: (trusted) => {
      for (const memory of memories) memory.trust(trusted);
    },
  };
  const heartbeat = keyNoticeHeartbeat(pool, schema ?? DEFAULT_SCHEMA, keys.trust);
  const log = listenerLog(logger, "API key, campaign and subscription changes");
  try {
    const stopListening = await listenForKeyChanges(
      pool,
      (keyId) => {
        if (!heartbeat.heard(keyId)) keys.forget(keyId);
      },
      {
        schema,
        onError: log.onError,
        onListening: (listening) => {
          log.onListening(listening);
          heartbeat.listening(listening);
        },
      },
    );
    return async () => {
      heartbeat.stop();
      await stopListening();
    };
  } catch (error) {
    heartbeat.stop();
    throw error;
  }
}

/**
 * What a LISTEN connection tells the log: that it broke (once, not at every attempt while it
 * keeps failing to reconnect) and that it listens again. Meanwhile its notices are lost: keys
 * are read from the database, and deliveries wait for the engine's next poll. A failure
 * before it ever listened is not logged here: the caller of the listen is told instead.
 */
function listenerLog(
  logger: Logger | undefined,
  listener: string,
): { onError: (error: Error) => void; onListening: (listening: boolean) => void } {
  let listened = false;
  let broken = false;
  return {
    onError: (error) => {
      if (!listened || broken) return;
      broken = true;
      logger?.warn("PostgreSQL listener lost; reconnecting", { listener, error: error.message });
    },
    onListening: (listening) => {
      if (!listening) return;
      listened = true;
      if (!broken) return;
      broken = false;
      logger?.info("PostgreSQL listener reconnected", { listener });
    },
  };
}

/**
 * Opens PostgreSQL through a `pg.Pool`, applies pending migrations (under the adapter's
 * advisory lock, so processes starting together migrate once) and offers LISTEN/NOTIFY
 * wake-ups for the delivery engine. Every statement of the storage, its listeners and its
 * backlog reads waits at most `timeoutMs` for a connection and as long again for its answer
 * (`boundedPoolOptions`); migrations and `ANALYZE`, which may rightly run longer, go through
 * a pool of one connection whose statements have no such bound.
 */
export async function openPostgresStorage(
  url: string,
  logger?: Logger,
  timeoutMs: number = DEFAULT_STORAGE_TIMEOUT_MS,
): Promise<OpenedStorage> {
  const { connectionString, schema, prepared, keyMemoryMs } = splitOptions(url);
  const pool = new pg.Pool({ connectionString, ...boundedPoolOptions(timeoutMs) });
  const unbounded = new pg.Pool({
    connectionString,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
  });
  // An idle connection that breaks must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  unbounded.on("error", () => undefined);
  try {
    const migrations = await migrate(unbounded, { schema });
    // Named statements: each connection parses a statement once and may keep its plan.
    const database = postgresStorage(prepared ? preparedStatements(pool) : pool, { schema });
    // Verified keys, campaigns and where each organization's events go stay in memory while the
    // schema's triggers announce every change to them here: a round trip fewer per
    // authenticated request, per send and per provider report, and a revocation, a paused
    // campaign or a new subscription still takes effect at once.
    const memories = memoriesOf(database, keyMemoryMs);
    const storage = memories?.storage ?? database;
    const { rows } = await pool.query<{ autovacuum: string }>(
      "SELECT current_setting('autovacuum') AS autovacuum",
    );
    // Retention deletes in small batches and leaves the space to autovacuum to make reusable.
    const warnings: string[] =
      rows[0]?.autovacuum === "off"
        ? [
            "PostgreSQL's autovacuum is off on this server: the rows retention deletes never become free space again, and the database keeps growing. Turn autovacuum on (the default), or VACUUM Tidings' tables on a schedule.",
          ]
        : [];
    let stopKeyNotices = async (): Promise<void> => undefined;
    if (memories !== null) {
      try {
        stopKeyNotices = await listenForChanges(pool, schema, memories.kept, logger);
      } catch (error) {
        warnings.push(
          `Listening for API key, campaign and subscription changes failed (${String(error)}): every request reads its key, and every send its campaign and subscriptions, from the database.`,
        );
      }
    }
    // Each table at most once per process; autovacuum keeps the statistics from then on.
    const analyzed = new Set<string>();
    return {
      storage,
      migrations,
      warnings,
      listenForDeliveries: (onNotify) =>
        listenForDeliveries(pool, onNotify, {
          schema,
          ...listenerLog(logger, "deliveries due"),
        }),
      webhookBacklog: (now) => webhookBacklog(pool, now, { schema }),
      scheduledMessages: () => scheduledMessageCount(pool, { schema }),
      maintain: async () => {
        const tables = await analyzeNewTables(unbounded, { schema, except: analyzed });
        for (const table of tables) analyzed.add(table);
        return tables.map((table) => `analyzed ${table}`);
      },
      async close() {
        await stopKeyNotices();
        await storage.close();
        await Promise.all([pool.end(), unbounded.end()]);
      },
    };
  } catch (error) {
    await Promise.all([pool.end(), unbounded.end()]);
    throw error;
  }
}
