import type pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { noticeHeartbeat, splitOptions } from "./open-postgres-storage.js";

describe("Tidings' own parameters of a PostgreSQL URL", () => {
  it("takes schema and prepared_statements out before the URL reaches pg", () => {
    expect(
      splitOptions("postgres://u@db:5432/app?sslmode=require&schema=t1&prepared_statements=false"),
    ).toEqual({
      connectionString: "postgres://u@db:5432/app?sslmode=require",
      schema: "t1",
      prepared: false,
      // A pooler in transaction mode delivers no notices, so no key is kept in memory.
      keyMemoryMs: 0,
    });
  });

  it("prepares statements and uses the default schema unless told otherwise", () => {
    expect(splitOptions("postgres://u@db/app")).toEqual({
      connectionString: "postgres://u@db/app",
      schema: undefined,
      prepared: true,
      keyMemoryMs: 5_000,
    });
    expect(splitOptions("postgres://u@db/app?prepared_statements=true").prepared).toBe(true);
  });

  it("keeps API keys in memory as long as key_memory_ms says, and refuses anything else", () => {
    expect(splitOptions("postgres://u@db/app?key_memory_ms=60000")).toMatchObject({
      connectionString: "postgres://u@db/app",
      keyMemoryMs: 60_000,
    });
    expect(splitOptions("postgres://u@db/app?key_memory_ms=0").keyMemoryMs).toBe(0);
    for (const bad of ["", "-1", "1.5", "5s", "1e3"]) {
      expect(() => splitOptions(`postgres://u@db/app?key_memory_ms=${bad}`)).toThrow(
        /key_memory_ms must be a whole number of milliseconds/,
      );
    }
  });
});

describe("the API key notices' heartbeat", () => {
  afterEach(() => vi.useRealTimers());

  /** A heartbeat over a pool that only records the probes it is asked to send. */
  function beating() {
    vi.useFakeTimers();
    const probes: string[] = [];
    const pool = {
      query: async (_text: string, values: unknown[]) => {
        const [, payload] = values as [string, string];
        probes.push((JSON.parse(payload) as [string, string])[1]);
        return { rows: [] };
      },
    } as unknown as Pick<pg.Pool, "query">;
    const trusted: boolean[] = [];
    const heartbeat = noticeHeartbeat(pool, "app", (value) => trusted.push(value), 1_000);
    return { heartbeat, probes, trusted };
  }

  it("trusts the notices once its own came back, and no longer once one did not", async () => {
    const { heartbeat, probes, trusted } = beating();
    try {
      heartbeat.listening(true);
      expect(trusted).toEqual([]);
      expect(probes).toHaveLength(1);
      expect(heartbeat.heard(probes[0] ?? null)).toBe(true);
      expect(trusted).toEqual([true]);
      // The next probe goes out and never comes back: trust ends when the one after is due.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(probes).toHaveLength(2);
      expect(trusted).toEqual([true]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(trusted).toEqual([true, false]);
      // A late echo of an older probe proves nothing; the newest one does.
      heartbeat.heard(probes[1] ?? null);
      expect(trusted).toEqual([true, false]);
      heartbeat.heard(probes[2] ?? null);
      expect(trusted).toEqual([true, false, true]);
    } finally {
      heartbeat.stop();
    }
  });

  it("passes key ids on, ignores other processes' probes, and distrusts a listener that stopped", () => {
    const { heartbeat, probes, trusted } = beating();
    try {
      heartbeat.listening(true);
      expect(heartbeat.heard("key_0123456789abcdefghjkmnpqrs")).toBe(false);
      expect(heartbeat.heard(null)).toBe(false);
      expect(heartbeat.heard("probe:another-process:1")).toBe(true);
      expect(trusted).toEqual([]);
      heartbeat.heard(probes[0] ?? null);
      heartbeat.listening(false);
      expect(trusted).toEqual([true, false]);
      // Not listening: no probe is sent, and an echo arriving now is not believed.
      heartbeat.heard(probes[0] ?? null);
      expect(trusted).toEqual([true, false]);
    } finally {
      heartbeat.stop();
    }
  });
});
