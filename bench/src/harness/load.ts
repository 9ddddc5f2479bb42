import autocannon from "autocannon";

/** One request of a load run, made fresh for every request sent. */
export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  body?: string | undefined;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string> | undefined;
  /** Called for every request; lets each one carry its own phone number or id. */
  next: () => LoadRequest;
}

/** What one autocannon run measured. */
export interface LoadResult {
  requestsPerS: number;
  /** Mean latency, in fractional ms (autocannon's percentiles are whole milliseconds). */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  /** Answers outside 2xx plus connection errors and timeouts. */
  failures: number;
  statusCodes: Record<string, number>;
}

/** Runs autocannon for `durationS` seconds with `connections` connections. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    headers: { "content-type": "application/json", ...options.headers },
    requests: [
      {
        setupRequest: (request) => {
          const next = options.next();
          return { ...request, method: next.method, path: next.path, body: next.body ?? "" };
        },
      },
    ],
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stat.count ?? 0;
  }
  return {
    requestsPerS: result.requests.total / result.duration,
    meanMs: result.latency.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    statusCodes,
  };
}

/** Seconds per measured run: BENCH_DURATION_S, else `fallback`. */
export function durationS(fallback: number): number {
  const value = Number(process.env.BENCH_DURATION_S);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
