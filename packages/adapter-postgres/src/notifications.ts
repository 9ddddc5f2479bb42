import { randomBytes } from "node:crypto";
import type { PgQueryable } from "./pg-client.js";
import { DEFAULT_SCHEMA } from "./tables.js";

/**
 * The channel on which the storage announces work: `pg_notify(DELIVERIES_CHANNEL, schema)`
 * runs when a pending delivery is inserted or a failed one is redelivered (sent at commit).
 */
export const DELIVERIES_CHANNEL = "tidings_deliveries";

/**
 * The call that announces work on `DELIVERIES_CHANNEL` from inside a statement, with the
 * schema's name bound as parameter `$param`: the payload names the schema, so listeners of
 * other schemas on the database sleep on. Sent at commit, so never for work rolled back.
 */
export const notifyDeliveries = (param: number): string =>
  `pg_notify('${DELIVERIES_CHANNEL}', $${param}::text)`;

/**
 * The channel on which the schema's triggers announce a changed API key (schema version 8),
 * campaign or webhook subscription (version 11): the payload is `[schema, id]` as JSON, the id a
 * key's, a campaign's or the subscription's organization's, `null` when any may have changed.
 */
export const API_KEYS_CHANNEL = "tidings_api_keys";

/** One notification as `pg` reports it. */
export interface PgNotification {
  channel: string;
  payload?: string | undefined;
}

/** A dedicated connection that can LISTEN (`pg.PoolClient`). */
export interface PgListeningConnection extends PgQueryable {
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "notification", listener: (message: PgNotification) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
  release(error?: Error | boolean): void;
}

/** A pool to borrow the listening connection from (`pg.Pool`). */
export interface PgListeningPool {
  connect(): Promise<PgListeningConnection>;
}

/** A database with its own LISTEN support (PGlite's `db.listen`). */
export interface PgNativeListener {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

export interface ListenOptions {
  /** Wake only for this schema's deliveries (default `public`), as given to `postgresStorage`. */
  schema?: string | undefined;
  /** How long to wait before listening again after the connection broke (default 1000 ms). */
  reconnectDelayMs?: number | undefined;
  /** Told when the listening connection breaks; it reconnects on its own. */
  onError?: ((error: Error) => void) | undefined;
  /**
   * Told `true` once the connection listens, and `false` when it broke: notifications sent
   * meanwhile are lost, so whoever relies on them stops doing so until the next `true`.
   */
  onListening?: ((listening: boolean) => void) | undefined;
}

/**
 * Calls `onWake` whenever a delivery of the schema becomes pending (inserted or redelivered),
 * listening on a dedicated connection borrowed from `source` (kept until the returned stop
 * function is called), or with PGlite's own `listen`. After a broken connection it listens
 * again after a delay.
 *
 * A wake-up is a hint, never the only trigger: notifications are lost while the connection is
 * down, and none is sent when a retry merely becomes due with time. A worker keeps polling
 * (`deliveries.nextDueAt()` / `claimDue` on a timer) and uses wake-ups to start early.
 */
export async function listenForDeliveries(
  source: PgListeningPool | PgNativeListener,
  onWake: () => void,
  options: ListenOptions = {},
): Promise<() => Promise<void>> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const wakeFor = (payload: string | undefined) => {
    if (payload === schema) onWake();
  };
  return listenOn(source, DELIVERIES_CHANNEL, wakeFor, options);
}

/**
 * Calls `onChange` with a key's id whenever that API key of the schema changed (revoked,
 * deleted), with a campaign's id whenever that campaign changed, with an organization's id
 * whenever one of its webhook subscriptions did, and with `null` when any may have (a table
 * emptied), as the triggers of schema versions 8 and 11 announce it. `options.onListening` says when the announcements can be
 * relied on: between a `false` and the next `true` some may have been lost.
 */
export function listenForKeyChanges(
  source: PgListeningPool | PgNativeListener,
  onChange: (keyId: string | null) => void,
  options: ListenOptions = {},
): Promise<() => Promise<void>> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  return listenOn(
    source,
    API_KEYS_CHANNEL,
    (payload) => {
      const change = parseKeyChange(payload);
      // An announcement that cannot be read could name any key.
      if (change === undefined) onChange(null);
      else if (change.schema === schema) onChange(change.keyId);
    },
    options,
  );
}

/**
 * Trusts the API key change notices only while they are seen to arrive: every `everyMs` it
 * sends a notice of its own through `pool`, and calls `trust(true)` once that notice came back.
 * Pass every key id `listenForKeyChanges` reports to `heard` first, and the listener's
 * `onListening` to `listening`. A notice not back when the next is due ends the trust until one
 * is: a listener cut off without an error (a dropped idle connection), or a pooler in
 * transaction mode that takes LISTEN and never delivers.
 */
export function keyNoticeHeartbeat(
  pool: PgQueryable,
  schema: string,
  trust: (trusted: boolean) => void,
  everyMs = 1_000,
) {
  const prefix = `probe:${randomBytes(6).toString("hex")}:`;
  let listening = false;
  let awaited: string | null = null;
  let sent = 0;
  const beat = () => {
    if (awaited !== null) trust(false);
    if (!listening) return;
    sent += 1;
    awaited = `${prefix}${sent}`;
    pool
      .query("SELECT pg_notify($1, $2)", [API_KEYS_CHANNEL, JSON.stringify([schema, awaited])])
      .catch(() => trust(false));
  };
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return {
    listening(value: boolean) {
      listening = value;
      awaited = null;
      if (value) beat();
      else trust(false);
    },
    /** Whether `keyId` is a probe (this process's or another's) rather than a key. */
    heard(keyId: string | null): boolean {
      if (keyId === null || !keyId.startsWith("probe:")) return false;
      if (keyId === awaited && listening) {
        awaited = null;
        trust(true);
      }
      return true;
    },
    stop: () => clearInterval(timer),
  };
}

/** `[schema, key id]` from a key-change payload; `undefined` when it is not one. */
function parseKeyChange(
  payload: string | undefined,
): { schema: string; keyId: string | null } | undefined {
  try {
    const [schema, keyId] = JSON.parse(payload ?? "") as unknown[];
    if (typeof schema !== "string" || (typeof keyId !== "string" && keyId !== null)) {
      return undefined;
    }
    return { schema, keyId };
  } catch {
    return undefined;
  }
}

async function listenOn(
  source: PgListeningPool | PgNativeListener,
  channel: string,
  onPayload: (payload: string | undefined) => void,
  options: ListenOptions,
): Promise<() => Promise<void>> {
  if (!("listen" in source)) return listenOnPool(source, channel, onPayload, options);
  const stop = await source.listen(channel, onPayload);
  options.onListening?.(true);
  return async () => {
    options.onListening?.(false);
    await stop();
  };
}

async function listenOnPool(
  pool: PgListeningPool,
  channel: string,
  onPayload: (payload: string | undefined) => void,
  options: ListenOptions,
): Promise<() => Promise<void>> {
  const delayMs = options.reconnectDelayMs ?? 1000;
  let stopped = false;
  let current: { connection: PgListeningConnection; detach: () => void } | undefined;
  let retry: NodeJS.Timeout | undefined;

  const onNotification = (message: PgNotification) => {
    if (message.channel === channel) onPayload(message.payload);
  };

  const connect = async (): Promise<void> => {
    const connection = await pool.connect();
    if (stopped) {
      connection.release();
      return;
    }
    const onError = (error: Error) => {
      // Without an error listener, a broken checked-out connection would crash the process.
      options.onError?.(error);
      if (current?.connection !== connection) return;
      options.onListening?.(false);
      current.detach();
      current = undefined;
      connection.release(error);
      scheduleReconnect();
    };
    const detach = () => {
      connection.removeListener("notification", onNotification);
      connection.removeListener("error", onError);
    };
    connection.on("notification", onNotification);
    connection.on("error", onError);
    current = { connection, detach };
    try {
      await connection.query(`LISTEN ${channel}`);
      if (current?.connection === connection) options.onListening?.(true);
    } catch (error) {
      if (current?.connection === connection) {
        detach();
        current = undefined;
        connection.release(error instanceof Error ? error : true);
      }
      throw error;
    }
  };

  // Once at a time: a connection that breaks while it subscribes reports it twice (its error
  // event, then the failed LISTEN), and two loops would each hold a connection.
  const scheduleReconnect = () => {
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((error: unknown) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        scheduleReconnect();
      });
    }, delayMs);
    retry.unref();
  };

  try {
    await connect();
  } catch (error) {
    // Not listening at all: nothing is left to retry behind the caller's back.
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    throw error;
  }
  return async () => {
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    const active = current;
    current = undefined;
    if (active === undefined) return;
    options.onListening?.(false);
    try {
      await active.connection.query(`UNLISTEN ${channel}`);
      active.connection.release();
    } catch (error) {
      active.connection.release(error instanceof Error ? error : true);
    } finally {
      // Detached only now: an error event while unlistening must still find a listener.
      active.detach();
    }
  };
}
