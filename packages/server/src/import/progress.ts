import { createReadStream } from "node:fs";
import type { Writable } from "node:stream";
import cliProgress from "cli-progress";

/** Ticks as rows are read; a no-op off a terminal, so logs and pipes stay clean. */
export interface ImportProgress {
  tick(): void;
  /** Replaces the bar with a line saying what happens next. */
  finish(next: string): void;
}

const silent: ImportProgress = { tick: () => undefined, finish: () => undefined };

/** Counts the lines of a file, for the bar's total (a row per line, at most). */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 10) lines += 1;
    last = chunk.at(-1) ?? last;
  }
  return last === 10 ? lines : lines + 1;
}

/** A progress bar on `out` when it is a terminal and the output is for a person. */
export async function importProgress(
  path: string,
  out: Writable & { isTTY?: boolean | undefined },
  enabled: boolean,
): Promise<ImportProgress> {
  if (!enabled || out.isTTY !== true) return silent;
  const total = await countLines(path);
  const bar = new cliProgress.SingleBar(
    { stream: out, format: "Reading {bar} {value}/{total} lines", hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    tick: () => bar.increment(),
    finish(next) {
      bar.update(total);
      bar.stop();
      out.write(`${next}\n`);
    },
  };
}
