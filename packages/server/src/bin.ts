#!/usr/bin/env node
import { answerVersion } from "./cli/version.js";

/**
 * The first SIGTERM or SIGINT asks `serve` and `worker` to drain and stop; a second one ends
 * the process at once. Other commands keep Node's default: a signal ends them, and an import
 * interrupted that way leaves nothing behind (its rows are written in one transaction).
 */
const waitForShutdown = (): Promise<string> =>
  new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      process.once("SIGTERM", () => process.exit(143));
      process.once("SIGINT", () => process.exit(130));
      resolve(signal);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });

/**
 * A failure nothing else caught is written as one JSON line, like every other line of `serve`
 * and `worker` (on stdout for them, stderr for the rest), and the process exits 1: its state
 * is unknown, and a supervisor restarts it.
 */
const logsToStdout = ["serve", "worker"].includes(process.argv[2] ?? "");
const crash = (error: unknown): void => {
  const line = {
    time: new Date().toISOString(),
    level: "error",
    msg: "crashed",
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  };
  (logsToStdout ? process.stdout : process.stderr).write(`${JSON.stringify(line)}
`);
  process.exit(1);
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

const argv = process.argv.slice(2);
// `--version` is answered before the rest of the CLI (storage, the API, the console) is loaded.
if (!answerVersion(argv, process.stdout)) {
  const { main } = await import("./cli/main.js");
  process.exitCode = await main(argv, {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    waitForShutdown,
  });
}
