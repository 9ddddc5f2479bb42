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
