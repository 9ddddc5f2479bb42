/**
 * Polls `check` every 50 ms until it answers something other than `undefined`; fails after
 * 20 s with `what` instead of hanging the test.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
