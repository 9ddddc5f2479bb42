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
