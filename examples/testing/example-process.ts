// Test support for the examples' smoke tests: one example running as its README runs it.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A running example: its output so far, and promises for start-up and exit. */
export interface ExampleProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with what `isReady` found; rejects if the process exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * Starts `examples/<script> ...args` through Node with the tsx loader rather than
 * `pnpm exec tsx`, so a stop signal reaches the example's own process and its exit code is
 * the example's (pnpm and the tsx CLI sit in between otherwise). `isReady` is asked after
 * every chunk of output and returns what the test needs once the example has started.
 */
export function startExample(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  isReady: (output: { stdout: string; stderr: string }) => string | undefined,
): ExampleProcess {
  const child = spawn(process.execPath, ["--import", "tsx", `examples/${script}`, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const found = isReady({ stdout, stderr });
      if (found !== undefined) resolve(found);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      check();
    });
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready: ${stderr}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, stdout: () => stdout, stderr: () => stderr };
}
