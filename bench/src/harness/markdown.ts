/** A Markdown table; numbers are right-aligned. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  const align = head.map((_, i) =>
    rows.every(
      (row) =>
        typeof row[i] === "number" || /^[-+]?[0-9.,]+( ?[%×a-z]+)?$/i.test(String(row[i] ?? "")),
    )
      ? "---:"
      : "---",
  );
  const line = (cells: Array<string | number>) => `| ${cells.map(String).join(" | ")} |`;
  return [line(head), `|${align.join("|")}|`, ...rows.map(line)].join("\n");
}

/** A whole number with thousands separators. */
export const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** A figure with `digits` decimals. */
export const fixed = (n: number, digits = 1): string => n.toFixed(digits);

/** A ratio as a percentage. */
export const percent = (ratio: number): string => `${(ratio * 100).toFixed(0)}%`;

/** `PASS`/`MISS` for a target. */
export const verdict = (met: boolean): string => (met ? "met" : "**missed**");

/** What a latency table shows of one load run. */
interface Latency {
  requestsPerS: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * One row per endpoint, two columns per data size (req/s; mean / p50 / p99 ms): how latency
 * moves as the stored data grows. `pick` finds an endpoint's run at a size.
 */
export function latencyBySize(
  sizes: readonly number[],
  endpoints: readonly string[],
  pick: (size: number, endpoint: string) => Latency | undefined,
): string {
  return table(
    ["Endpoint", ...sizes.flatMap((s) => [`${int(s)}: req/s`, `${int(s)}: mean / p50 / p99 ms`])],
    endpoints.map((name) => [
      `\`${name}\``,
      ...sizes.flatMap((s) => {
        const r = pick(s, name);
        return r
          ? [int(r.requestsPerS), `${fixed(r.meanMs, 2)} / ${r.p50Ms} / ${r.p99Ms}`]
          : ["", ""];
      }),
    ]),
  );
}
