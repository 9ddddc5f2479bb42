import type { Writable } from "node:stream";
import type { Clock, DomainError, InboundSink } from "@tidings/core";
import type { Result } from "neverthrow";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import type { Runtime } from "../runtime/runtime.js";

/** What the CLI talks to: the process's, or a test's in-process stand-ins. */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  /** `isTTY` decides whether lists print as a table with a header. */
  stdout: Writable & { isTTY?: boolean | undefined };
  /** `isTTY` decides whether `profiles import` draws a progress bar. */
  stderr: Writable & { isTTY?: boolean | undefined };
  /**
   * Resolves with the signal's name when the process is asked to stop (SIGTERM, SIGINT);
   * `serve` and `worker` call it, then drain and return. Tests pass a promise they resolve.
   */
  waitForShutdown?: (() => Promise<string>) | undefined;
  /**
   * Where the providers' inbound routes hand messages, in place of the runtime's own sink: for
   * an embedder that stores them itself, and for tests.
   */
  inboundSink?: InboundSink | undefined;
  /** The clock `serve` and `worker` run on (the system's): for tests that move time. */
  clock?: Clock | undefined;
}

/** The value of each option of a parsed command line (`node:util` parseArgs). */
export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Everything a command needs, opened by `main` before the command runs. */
export interface CommandContext {
  io: CliIo;
  flags: Flags;
  positionals: string[];
  json: boolean;
  config: ServerConfig;
  /**
   * The absolute path of the `--env-file` the configuration was read from as well as the
   * environment; `null`: the environment alone.
   */
  envFile: string | null;
  /** Logs JSON lines: to stdout for serve and worker, to stderr for every other command. */
  logger: Logger;
  runtime: Runtime;
}

/**
 * What a command answers: a one-shot command's JSON document and text for a person, or the
 * exit code of a long-running one (serve, worker) that has already said what it had to; or the
 * domain error to print.
 */
export type CommandOutcome = Result<CommandAnswer, DomainError>;

export type CommandAnswer =
  /** A one-shot answer; `exitCode` (0 unless given) says whether what it reports is healthy. */
  { json: unknown; human: string; exitCode?: number | undefined } | { exitCode: number };

/** One option: how `parseArgs` reads it, and what `--help` says of it. */
export type OptionSpec = {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** What it sets, in a sentence, for the command's `--help`. */
  help: string;
  /** The value's name in `--help` (`SECONDS`), for a string option; its own name upper-cased otherwise. */
  value?: string;
};

/** `--org ORG`, which most commands take. */
export const ORG_OPTION: OptionSpec = {
  type: "string",
  help: "The organization's id (org_…); `tidings orgs list` shows them.",
};

/** One command of the `tidings` CLI. */
export interface Command {
  /** The words that select it, e.g. `["keys", "create"]`. */
  name: string[];
  summary: string;
  /** More lines of help after the summary, e.g. the values an option takes. */
  details?: readonly string[] | undefined;
  /** The arguments after the command's name, for the help text. */
  usage: string;
  options: Record<string, OptionSpec>;
  /**
   * The flag that sets an input field, where the names differ beyond `_` and `-`
   * (`{ ttl_seconds: "ttl" }`), so errors name what the user typed.
   */
  fieldFlags?: Record<string, string> | undefined;
  /** Options that must be given. */
  required?: string[] | undefined;
  /** How many positional arguments it takes. */
  positionals?: { min: number; max: number } | undefined;
  /** Checks the options' values before anything is opened; throws a `UsageError`. */
  validate?(flags: Flags, positionals: string[]): void;
  /** Whether its logs go to stdout (the server processes) rather than stderr. */
  logsToStdout?: boolean | undefined;
  /**
   * Set for the long-running processes (`serve`, `worker`): they are traced when the `OTEL_*`
   * variables say where to, and count Prometheus metrics when `servesMetrics` says they serve
   * them (the configuration may turn them off, and `worker` serves them only on a port).
   */
  observed?: { servesMetrics(config: ServerConfig): boolean } | undefined;
  run(context: CommandContext): Promise<CommandOutcome>;
}
