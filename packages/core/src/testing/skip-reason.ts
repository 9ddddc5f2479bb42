/**
 * Whether tests that need something absent are skipped, saying so: when `available` is false,
 * prints `skipped: <reason>` (vitest shows it under the file), so a skipped test is never
 * silent about why. Use as `describe.skipIf(skippedUnless(url !== undefined, "…"))`.
 */
export function skippedUnless(available: boolean, reason: string): boolean {
  if (!available) console.warn(`skipped: ${reason}`);
  return !available;
}
