import { describe, expect, it } from "vitest";
import {
  markNothingWritten,
  type StorageHealthChange,
  StorageUnavailableError,
  storageHealth,
  wroteNothing,
} from "./storage-faults.js";

describe("storageHealth", () => {
  it("tells each change once: the first fault, and the first success after it", () => {
    let now = 1000;
    const health = storageHealth(() => now);
    const changes: StorageHealthChange[] = [];
    health.onChange((change) => changes.push(change));
    health.succeeded();
    health.failed(new Error("a constraint, not a fault"));
    expect(health.isAvailable()).toBe(true);
    const fault = new StorageUnavailableError("disk_full", "unchanged");
    health.failed(fault);
    health.failed(new StorageUnavailableError("disk_full", "unchanged"));
    expect(health.isAvailable()).toBe(false);
    expect(health.unavailableSince()).toBe(1000);
    now = 3500;
    health.succeeded();
    health.succeeded();
    expect(changes).toEqual([
      { available: false, error: fault },
      { available: true, unavailableForMs: 2500 },
    ]);
    expect(health.unavailableSince()).toBeNull();
  });

  it("keeps telling the other listeners when one throws", () => {
    const health = storageHealth();
    const heard: boolean[] = [];
    health.onChange(() => {
      throw new Error("listener bug");
    });
    const stop = health.onChange((change) => heard.push(change.available));
    health.failed(new StorageUnavailableError("unreachable", "unknown"));
    stop();
    health.succeeded();
    expect(heard).toEqual([false]);
  });
});

describe("markNothingWritten", () => {
  it("marks an error once, however many transactions it passes through, and leaves others unmarked", () => {
    const error = new Error("refused before COMMIT");
    expect(wroteNothing(error)).toBe(false);
    expect(markNothingWritten(markNothingWritten(error))).toBe(error);
    expect(wroteNothing(error)).toBe(true);
    expect(wroteNothing(new Error("after COMMIT"))).toBe(false);
    expect(wroteNothing(new StorageUnavailableError("unreachable", "unchanged"))).toBe(true);
    expect(wroteNothing(new StorageUnavailableError("unreachable", "unknown"))).toBe(false);
    // Nothing to mark on a frozen error or a thrown string: they are passed on as they are.
    const frozen = Object.freeze(new Error("frozen"));
    expect(markNothingWritten(frozen)).toBe(frozen);
    expect(markNothingWritten("text")).toBe("text");
  });
});
