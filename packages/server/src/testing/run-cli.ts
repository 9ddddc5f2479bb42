import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { CliIo } from "../cli/command.js";
import { main } from "../cli/main.js";

/** A writable that keeps what was written, for assertions. */
export class Captured extends Writable {
  chunks: string[] = [];
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: string, done: () => void): void {
    this.chunks.push(chunk.toString());
    done();
  }
  text(): string {
    return this.chunks.join("");
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document `--json` promises. */
  json<T = Record<string, unknown>>(): T;
}

/** A temporary directory with a SQLite database URL, removed by `cleanup`. */
export function tempWorkspace(): { dir: string; env: Record<string, string>; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "tidings-cli-"));
  return {
    dir,
    env: { TIDINGS_DATABASE_URL: `sqlite:${join(dir, "tidings.db")}`, TIDINGS_LOG_LEVEL: "warn" },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs the CLI in-process with captured output. */
export async function runCli(
  argv: string[],
  env: Record<string, string>,
  extra: Partial<CliIo> = {},
): Promise<CliRun> {
  const stdout = new Captured();
  const stderr = new Captured();
  const code = await main(argv, { env, cwd: tmpdir(), stdout, stderr, ...extra });
  return {
    code,
    stdout: stdout.text(),
    stderr: stderr.text(),
    json: <T>() => JSON.parse(stdout.text()) as T,
  };
}
