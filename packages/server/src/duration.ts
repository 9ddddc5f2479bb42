const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A duration written as a whole number and a unit, `ms`, `s`, `m`, `h` or `d` (`24h`, `90d`),
 * in milliseconds; `null` when the text is not one.
 */
export function parseDuration(text: string): number | null {
  const match = /^([0-9]{1,12})(ms|s|m|h|d)$/.exec(text);
  if (match === null) return null;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  return Number.isSafeInteger(ms) ? ms : null;
}

/** A duration in the largest unit that writes it whole, for messages (`90d`, `1500ms`). */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    const size = UNIT_MS[unit] ?? 1;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
