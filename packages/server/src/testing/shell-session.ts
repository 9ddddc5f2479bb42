// Test support: one bash process that runs blocks of a document one after another, as a person
// pastes them into a terminal, so variables and background jobs carry from block to block.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { waitUntil } from "@tidings/core/testing";

/** What one block printed, and the exit status of its last command. */
export interface BlockRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Commands of the block that failed (bash's ERR trap), each as written. */
  failed: string[];
}

/** How long one block may take, a `pnpm tidings` call that bundles the CLI first included. */
const BLOCK_PATIENCE_MS = 120_000;

// A command that fails is reported even where the block goes on (the status of a pipeline is
// its first failure's, and command substitutions report theirs too).
const PRELUDE = `set -o pipefail -E\ntrap 'echo "__failed__ $BASH_COMMAND" >&2' ERR\n`;

/** A bash session in `cwd` with exactly `env`; `close()` ends it and its background jobs. */
export function shellSession(cwd: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn("bash", ["--norc", "--noprofile"], {
    cwd,
    env,
    // Its own process group, so close() ends the jobs it started in the background too.
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.write(PRELUDE);
  let blocks = 0;

  const run = async (script: string): Promise<BlockRun> => {
    blocks += 1;
    const marker = `__block_${blocks}_done__`;
    const [outFrom, errFrom] = [stdout.length, stderr.length];
    // A leading newline: curl prints a JSON answer without one.
    child.stdin.write(
      `${script}\n__status=$?; printf '\\n${marker} %s\\n' "$__status"; echo ${marker} >&2\n`,
    );
    const done = new RegExp(`\\n${marker} (\\d+)\\n`);
    await waitUntil(
      `the block\n${script}\nto finish (stderr: ${stderr.slice(errFrom)})`,
      BLOCK_PATIENCE_MS,
      () => done.test(stdout.slice(outFrom)) && stderr.slice(errFrom).includes(`${marker}\n`),
    );
    const out = stdout.slice(outFrom);
    const match = done.exec(out);
    const err = stderr.slice(errFrom, stderr.indexOf(`${marker}\n`, errFrom));
    return {
      code: Number(match?.[1]),
      stdout: out.slice(0, match?.index),
      stderr: err,
      failed: [...err.matchAll(/^__failed__ (.*)$/gm)].map((found) => found[1] ?? ""),
    };
  };

  return {
    run,
    /** The value of a shell variable, as a block set it. */
    async variable(name: string): Promise<string> {
      // Between delimiters, in one write: a background job (the webhook receiver) may print
      // its own lines into the same output meanwhile.
      const printed = await run(`printf '\\n__value__%s__end_of_value__\\n' "$${name}"`);
      const value = /\n__value__([\s\S]*?)__end_of_value__\n/.exec(printed.stdout);
      if (value?.[1] === undefined) throw new Error(`$${name} was not printed: ${printed.stdout}`);
      return value[1];
    },
    /** Everything printed so far, background jobs' lines included. */
    output: () => ({ stdout, stderr }),
    close() {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group has already gone.
        }
      }
    },
  };
}
