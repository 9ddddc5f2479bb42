/**
 * Polls `check` every 50 ms until it answers something other than `undefined`; fails after
 * `ms` (20 s unless given) with `what` instead of hanging the test.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const rounds = Math.max(1, Math.ceil(ms / 50));
  for (let i = 0; i < rounds; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up after ${ms} ms waiting for ${what}`);
}
