// What the http benchmark reads from PostgreSQL about a run: commits of one database
// (`pg_stat_database`), the cluster's WAL (`pg_stat_wal`), the CPU of one server's own
// backends (found by their `application_name` in `pg_stat_activity`, read from /proc), and
// the round trips a process made (pg-round-trips-hook.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { PG_URL } from "./fixture.js";
import { cpuMs } from "./machine.js";

/**
 * How long to wait before reading counts a server's backends have made: PostgreSQL 15 reports
 * a backend's counts at most once a second while it works, and what is left 10 s after it went
 * idle.
 */
export const STATS_FLUSH_MS = 11_000;

/**
 * The URL of the database `name` on the benchmarks' server, made if missing. Tidings and the
 * peer each get one of their own, so a database's commits are one server's alone (the tests of
 * other worktrees use the server's default database).
 */
export async function benchDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name}"`).catch((error: { code?: string }) => {
        // Made meanwhile by another run: fine.
        if (error.code !== "42P04") throw error;
      });
    }
  } finally {
    await client.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Counts that only grow, read at one moment. */
export interface PgCounters {
  /** Committed transactions of the database (`pg_stat_database.xact_commit`). */
  commits: number;
  /** The whole cluster's WAL (`pg_stat_wal`): records, writes and flushes (`wal_sync`). */
  walRecords: number;
  walWrites: number;
  walSyncs: number;
}

/** A connection of the bench's own that reads PostgreSQL's statistics (in the default database). */
export class PgStats {
  private constructor(private readonly client: pg.Client) {}

  static async open(): Promise<PgStats> {
    const client = new pg.Client({ connectionString: PG_URL, application_name: "tidings-bench" });
    await client.connect();
    return new PgStats(client);
  }

  async counters(database: string): Promise<PgCounters> {
    const { rows } = await this.client.query<Record<string, string>>(
      `SELECT d.xact_commit, w.wal_records, w.wal_write, w.wal_sync
         FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = $1`,
      [database],
    );
    const row = rows[0];
    if (row === undefined) throw new Error(`no statistics for database ${database}`);
    return {
      commits: Number(row.xact_commit),
      walRecords: Number(row.wal_records),
      walWrites: Number(row.wal_write),
      walSyncs: Number(row.wal_sync),
    };
  }

  /** The backends whose connections carry `applicationName`. */
  async backends(applicationName: string): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
      [applicationName],
    );
    return rows.map((row) => row.pid);
  }

  /**
   * Starts counting the CPU time of the backends of `applicationName`: each backend's user
   * plus system time since the start (a backend that connects later counts from zero), read
   * every 200 ms, so a backend that ends meanwhile keeps what it had used at its last reading.
   * `null` off Linux.
   */
  async backendCpu(applicationName: string): Promise<BackendCpu | null> {
    if (cpuMs(process.pid) === null) return null;
    const start = new Map<number, number>();
    const last = new Map<number, number>();
    const read = async (first: boolean) => {
      for (const pid of await this.backends(applicationName)) {
        const ms = cpuMs(pid);
        if (ms === null) continue;
        if (first || !start.has(pid)) start.set(pid, first ? ms : 0);
        last.set(pid, ms);
      }
    };
    await read(true);
    let reading: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      reading = reading.then(() => read(false)).catch(() => undefined);
    }, 200);
    return {
      async stop() {
        clearInterval(timer);
        await reading;
        await read(false);
        let total = 0;
        for (const [pid, ms] of last) total += ms - (start.get(pid) ?? 0);
        return total;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** A running count of some backends' CPU time (`PgStats.backendCpu`). */
export interface BackendCpu {
  /** Stops counting; the ms of CPU the backends used since the start. */
  stop(): Promise<number>;
}

/**
 * What makes a process count its round trips to PostgreSQL into `file` (see
 * pg-round-trips-hook.mjs): the hook, and the module (`from`) its pg is resolved beside.
 */
export function roundTripCounting(
  file: string,
  from: string,
): { nodeArgs: string[]; env: Record<string, string> } {
  const hook = fileURLToPath(new URL("./pg-round-trips-hook.mjs", import.meta.url));
  return {
    nodeArgs: ["--import", pathToFileURL(hook).href],
    env: { BENCH_PG_ROUND_TRIPS_FILE: file, BENCH_PG_ROUND_TRIPS_FROM: from },
  };
}

/** The round trips counted into `file` so far (0 before the first count is written). */
export function roundTrips(file: string): number {
  try {
    return Number(readFileSync(file, "utf8")) || 0;
  } catch {
    return 0;
  }
}
