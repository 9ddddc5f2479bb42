// Every wait in a test has an end: a bug must fail the test with a sentence, not hang the run.

/** Settles as `promise` does, or rejects naming `what` once `ms` have passed first. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** Resolves once `condition()` holds, polling on a timer; rejects naming `what` after `ms`. */
export async function waitUntil(
  what: string,
  ms: number,
  condition: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Calls `step` until it answers true, at most `max` times, and throws naming `what` if it never
 * does: for loops that drain or page, where a storage that never runs dry would loop forever.
 */
export async function repeatUntilDone(
  what: string,
  max: number,
  step: () => Promise<boolean>,
): Promise<void> {
  for (let i = 0; i < max; i++) if (await step()) return;
  throw new Error(`${what} was not done after ${max} rounds`);
}
