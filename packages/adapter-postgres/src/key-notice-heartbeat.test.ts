import { afterEach, describe, expect, it, vi } from "vitest";
import { keyNoticeHeartbeat } from "./notifications.js";
import type { PgQueryable } from "./pg-client.js";

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
    } as PgQueryable;
    const trusted: boolean[] = [];
    const heartbeat = keyNoticeHeartbeat(pool, "app", (value) => trusted.push(value), 1_000);
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
