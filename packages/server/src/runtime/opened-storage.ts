import type { Storage, WebhookBacklog } from "@tidings/core";

/** Storage opened by the server, with what its migrations did on the way. */
export interface OpenedStorage {
  storage: Storage;
  migrations: { applied: number[]; version: number };
  /**
   * PostgreSQL only: calls `onNotify` whenever a delivery becomes due in another process;
   * resolves to the function that stops listening.
   */
  listenForDeliveries?: ((onNotify: () => void) => Promise<() => Promise<void>>) | undefined;
  /**
   * Housekeeping the database needs now and then (PostgreSQL: ANALYZE of tables that grew
   * before autovacuum's first visit); resolves to what it did, for the log.
   */
  maintain?: (() => Promise<string[]>) | undefined;
  /** Settings the connection runs with, read back from it, for the start-up log line. */
  settings?: Record<string, string> | undefined;
  /** What the database's own settings will do to Tidings' data, said once at start-up. */
  warnings?: string[] | undefined;
  /** Pending webhook deliveries due at `now` and the earliest due time, read on a metrics scrape. */
  webhookBacklog?: ((now: string) => Promise<WebhookBacklog>) | undefined;
  /** How many messages are held `scheduled`, read on a metrics scrape. */
  scheduledMessages?: (() => Promise<number>) | undefined;
  /** Closes the storage and the connections it opened. */
  close(): Promise<void>;
}
