import type { Clock, InboundSink } from "@tidings/core";
import { waitUntil } from "@tidings/core/testing";
import { main } from "../cli/main.js";
import { Captured, type tempWorkspace } from "./run-cli.js";

/** One JSON log line. */
export type LogLine = Record<string, unknown>;

/**
 * Starts `serve` or `worker` in-process in `cwd`; `stop()` plays the part of SIGTERM. With
 * `inboundSink`, the providers' inbound routes hand messages to it.
 */
export function startInProcess(
  cwd: string,
  argv: string[],
  env: Record<string, string>,
  options: { inboundSink?: InboundSink | undefined; clock?: Clock | undefined } = {},
) {
  const stdout = new Captured();
  const stderr = new Captured();
  let requestStop: (signal: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => {
    requestStop = resolve;
  });
  const exit = main(argv, {
    env,
    cwd,
    stdout,
    stderr,
    waitForShutdown: () => stopRequested,
    inboundSink: options.inboundSink,
    clock: options.clock,
  });
  const logs = (): LogLine[] =>
    stdout
      .text()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as LogLine);
  /** The first log line whose `msg` is `msg` (and that `also` accepts), waited for 30 s at most. */
  const waitForLog = async (
    msg: string,
    also: (line: LogLine) => boolean = () => true,
  ): Promise<LogLine> => {
    const find = () => logs().find((line) => line.msg === msg && also(line));
    await waitUntil(`a ${msg} log line (stderr: ${stderr.text()})`, 20_000, () => !!find());
    return find() as LogLine;
  };
  return {
    exit,
    logs,
    waitForLog,
    stdout,
    stderr,
    stop: (signal = "SIGTERM") => {
      requestStop(signal);
      return exit;
    },
  };
}

/**
 * Starts `serve` or `worker` in-process on `workspace`'s database, logging at info, `env`
 * added; `cleanups` stops it, then removes the workspace.
 */
export function startInWorkspace(
  cleanups: Array<() => Promise<void> | void>,
  workspace: ReturnType<typeof tempWorkspace>,
  argv: string[],
  env: Record<string, string> = {},
): ReturnType<typeof startInProcess> {
  const started = startInProcess(workspace.dir, argv, {
    ...workspace.env,
    TIDINGS_LOG_LEVEL: "info",
    ...env,
  });
  cleanups.push(async () => {
    await started.stop();
    workspace.cleanup();
  });
  return started;
}
