/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a text exposition (comments and blank lines skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(LABEL)) {
      labels[name ?? ""] = (value ?? "").replace(/\\(.)/g, "$1");
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** A parsed scrape: the sum of the samples of `name` whose labels include `labels`. */
export interface Scrape {
  samples: Sample[];
  text: string;
  value(name: string, labels?: Record<string, string>): number;
  /** Whether any sample of `name` exists. */
  has(name: string): boolean;
}

/** Fetches `url` (a `/metrics` address) and parses it; throws unless it answers 200. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text}`);
  const samples = parseExposition(text);
  return {
    samples,
    text,
    value: (name, labels = {}) =>
      samples
        .filter(
          (sample) =>
            sample.name === name &&
            Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
        )
        .reduce((sum, sample) => sum + sample.value, 0),
    has: (name) => samples.some((sample) => sample.name === name),
  };
}
