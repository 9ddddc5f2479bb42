import type { HourlyMessageCounts, MessageStatus } from "@tidings/core";

/** The statuses in the order they are stacked, each with its colour and its word. */
const SERIES: ReadonlyArray<{ status: MessageStatus; label: string; colour: string }> = [
  { status: "sent", label: "Sent, not yet delivered", colour: "#8da2c0" },
  { status: "delivered", label: "Delivered", colour: "#2f7d4f" },
  { status: "seen", label: "Seen", colour: "#1f5fbf" },
  { status: "clicked", label: "Clicked", colour: "#6a3fb5" },
  { status: "failed", label: "Failed", colour: "#b3261e" },
  { status: "expired", label: "Expired", colour: "#9a6700" },
];

const WIDTH = 960;
const HEIGHT = 260;
const LEFT = 48;
const BOTTOM = 28;
const TOP = 12;

/** Whole-number gridlines: none, the top, and the middle when it is a whole number of its own. */
const ticksOf = (max: number): number[] => [...new Set([0, Math.round(max / 2), max])];

const totalOf = (hour: HourlyMessageCounts) =>
  SERIES.reduce((sum, series) => sum + (hour.counts[series.status] ?? 0), 0);

/**
 * Messages of the last 24 hours by the hour they were sent, stacked by their status now: an
 * SVG drawn on the server (no script), with the same numbers in a table for screen readers.
 */
export function MessageChart(props: { hours: HourlyMessageCounts[] }) {
  const { hours } = props;
  const max = Math.max(1, ...hours.map(totalOf));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT - 8) / Math.max(1, hours.length);
  const barWidth = Math.max(4, slot * 0.72);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const total = hours.reduce((sum, hour) => sum + totalOf(hour), 0);
  const byStatus = SERIES.map((series) => ({
    ...series,
    count: hours.reduce((sum, hour) => sum + (hour.counts[series.status] ?? 0), 0),
  }));
  const summary = `${total} message${total === 1 ? "" : "s"} in the last 24 hours: ${
    byStatus
      .filter((series) => series.count > 0)
      .map((series) => `${series.count} ${series.status}`)
      .join(", ") || "none"
  }.`;
  return (
    <figure class="chart-figure">
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={summary}
        xmlns="http://www.w3.org/2000/svg"
      >
        {ticksOf(max).map((value) => (
          <g key={value}>
            <line x1={LEFT} x2={WIDTH - 8} y1={y(value)} y2={y(value)} stroke="#d6dbe3" />
            <text x={LEFT - 6} y={y(value) + 4} text-anchor="end">
              {value}
            </text>
          </g>
        ))}
        {hours.map((hour, i) => {
          let base = 0;
          const x = LEFT + i * slot + (slot - barWidth) / 2;
          return (
            <g key={hour.hour}>
              {SERIES.map((series) => {
                const count = hour.counts[series.status] ?? 0;
                if (count === 0) return null;
                const top = y(base + count);
                const height = y(base) - top;
                base += count;
                return (
                  <rect
                    key={series.status}
                    x={x}
                    y={top}
                    width={barWidth}
                    height={Math.max(1, height)}
                    fill={series.colour}
                  />
                );
              })}
              {i % 3 === 0 && (
                <text x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle">
                  {`${hour.hour.slice(11, 13)}:00`}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend">
          {byStatus.map((series) => (
            <li key={series.status}>
              <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
                <rect width="10" height="10" fill={series.colour} />
              </svg>
              {series.label}: {series.count}
            </li>
          ))}
        </ul>
        <p class="hint">
          Hours in UTC, by when each message was sent; colours show its status now.
        </p>
      </figcaption>
      <details>
        <summary>The numbers by hour</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Hour (UTC)</th>
                {SERIES.map((series) => (
                  <th scope="col" key={series.status}>
                    {series.status}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {hours.map((hour) => (
                <tr key={hour.hour}>
                  <td>{`${hour.hour.slice(0, 10)} ${hour.hour.slice(11, 13)}:00`}</td>
                  {SERIES.map((series) => (
                    <td key={series.status}>{hour.counts[series.status] ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
