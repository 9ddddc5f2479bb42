import { afterEach } from "vitest";

/** Something a test started and must stop: a server, a process, a temporary directory. */
export type Cleanup = () => Promise<void> | void;

/**
 * A list a test file pushes its cleanups onto; after every test they run, newest first, and the
 * list is emptied, so a failed test still stops what it started.
 */
export function cleanupsEach(): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
