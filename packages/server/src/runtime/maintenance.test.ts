import { afterEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "../logger.js";
import { startMaintenance } from "./maintenance.js";

function recordingLogger() {
  const lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push({ level, msg, ...(fields ? { fields } : {}) });
  };
  const logger: Logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
  return { logger, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("startMaintenance", () => {
  it("runs the storage's housekeeping every interval, logs what it did and survives a failure", async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    const answers: Array<() => Promise<string[]>> = [
      async () => ["analyzed profiles"],
      async () => {
        throw new Error("connection lost");
      },
      async () => [],
    ];
    let rounds = 0;
    const maintenance = startMaintenance(
      () => answers[rounds++]?.() ?? Promise.resolve([]),
      logger,
      1_000,
    );
    await vi.advanceTimersByTimeAsync(3_000);
    await maintenance.stop();
    expect(rounds).toBe(3);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ["info", "storage maintained"],
      ["error", "storage maintenance failed"],
    ]);
    expect(lines[0]?.fields).toEqual({ done: ["analyzed profiles"] });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(rounds).toBe(3);
  });

  it("stop() waits for the round in progress", async () => {
    vi.useFakeTimers();
    const { logger } = recordingLogger();
    let finish: () => void = () => undefined;
    const maintenance = startMaintenance(
      () =>
        new Promise<string[]>((resolve) => {
          finish = () => resolve([]);
        }),
      logger,
      1_000,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = maintenance.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it("does nothing for a storage without housekeeping (SQLite)", async () => {
    const { logger, lines } = recordingLogger();
    await startMaintenance(undefined, logger, 1).stop();
    expect(lines).toEqual([]);
  });
});
