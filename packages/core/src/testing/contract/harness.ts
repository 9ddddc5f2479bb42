import { afterEach, beforeEach } from "vitest";
import type { StorageHarness } from "./raw.js";

/** Makes a fresh, empty, migrated storage for one test. */
export type HarnessFactory = () => Promise<StorageHarness>;

/**
 * Registers hooks giving every test of the enclosing `describe` its own harness, disposed
 * after it; the returned function reads the current test's harness.
 */
export function useHarness<H extends StorageHarness = StorageHarness>(
  makeHarness: () => Promise<H>,
): () => H {
  let current: H | undefined;
  beforeEach(async () => {
    current = await makeHarness();
  });
  afterEach(async () => {
    const done = current;
    current = undefined;
    await done?.dispose();
  });
  return () => {
    if (current === undefined) throw new Error("storage contract: no harness outside a test");
    return current;
  };
}
