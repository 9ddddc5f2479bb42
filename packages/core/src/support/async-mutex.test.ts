import { describe, expect, it } from "vitest";
import { createAsyncMutex } from "./async-mutex.js";

describe("createAsyncMutex", () => {
  it("runs tasks one at a time in the order they asked, across awaits", async () => {
    const mutex = createAsyncMutex();
    const steps: string[] = [];
    const task = (name: string) => async () => {
      steps.push(`${name} starts`);
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      steps.push(`${name} ends`);
      return name;
    };
    const results = await Promise.all([mutex.run(task("a")), mutex.run(task("b"))]);
    expect(results).toEqual(["a", "b"]);
    expect(steps).toEqual(["a starts", "a ends", "b starts", "b ends"]);
  });

  it("passes a failure to its own caller and lets the next task run", async () => {
    const mutex = createAsyncMutex();
    const failed = mutex.run(() => {
      throw new Error("boom");
    });
    const next = mutex.run(() => "after");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("after");
  });
});
