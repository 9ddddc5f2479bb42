// Preloaded into a `tidings serve` under a soak test (`node --import <this file>`): every
// TIDINGS_PROBE_INTERVAL_MS it writes one JSON line to stderr with the event-loop delay
// percentiles since the last line, so the benchmark sees the server's loop from outside.
import { monitorEventLoopDelay } from "node:perf_hooks";

const interval = Number(process.env.TIDINGS_PROBE_INTERVAL_MS ?? 10_000);
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const timer = setInterval(() => {
  const line = {
    probe: "loop_delay",
    p50_ms: histogram.percentile(50) / 1e6,
    p99_ms: histogram.percentile(99) / 1e6,
    max_ms: histogram.max / 1e6,
  };
  histogram.reset();
  process.stderr.write(`${JSON.stringify(line)}\n`);
}, interval);
timer.unref();
