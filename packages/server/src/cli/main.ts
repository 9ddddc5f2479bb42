import { parseArgs } from "node:util";
import { closestName, editDistance } from "@tidings/core";
import { readConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { startTracing, type Tracing } from "../observability/tracing.js";
import { openRuntime, type Runtime } from "../runtime/runtime.js";
import { ConfigError } from "../secret-key.js";
import type { CliIo, Command, Flags } from "./command.js";
import { ENV_FILE_FLAG, takeEnvFile, withEnvFile } from "./env-file.js";
import { closestFlag, withFlagNames } from "./flag-names.js";
import { COMMANDS, commandHelp, commandsOf, overallHelp, writeHelp } from "./help.js";
import { writeError, writeProblem, writeResult } from "./output.js";
import { UsageError } from "./usage-error.js";
import { answerVersion } from "./version.js";

/** Exit codes: 0 done, 1 the command failed, 2 the command line is wrong. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** The command named by the leading words of `argv` (the longest match), and the rest. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  let best: Command | null = null;
  for (const command of COMMANDS) {
    const matches = command.name.every((word, i) => argv[i] === word);
    if (matches && (best === null || command.name.length > best.name.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.name.length) } : null;
}

/** The options the command line takes before any command. */
const TOP_LEVEL_FLAGS = ["--help", "--version", "--json", ENV_FILE_FLAG];

/** The first words of the command line, up to the first option: what names a command. */
function leadingWords(argv: string[]): string[] {
  const end = argv.findIndex((arg) => arg.startsWith("-"));
  return end === -1 ? argv : argv.slice(0, end);
}

/**
 * Why the command line names no command, with the closest one when one is close:
 * `campains list` → campaigns list, `campaigns lst` → campaigns list, `--versoin` → --version;
 * `tidings keys` alone lists the group's commands.
 */
function unknownCommand(argv: string[]): string {
  const first = argv[0] ?? "";
  if (first.startsWith("-")) {
    const flag = closestName(first.split("=", 1)[0] ?? "", TOP_LEVEL_FLAGS);
    return flag === null
      ? `unknown option ${first}; a command comes first: tidings <command> [options].`
      : `unknown option ${first}; did you mean ${flag}?`;
  }
  // The typed words, no more of them than the longest command has.
  const words = leadingWords(argv).slice(0, Math.max(...COMMANDS.map((c) => c.name.length)));
  const named = `unknown command ${JSON.stringify(words.join(" "))}`;
  const groups = [...new Set(COMMANDS.map((command) => command.name[0] ?? ""))];
  const group = commandsOf(words[0]).length > 0 ? words[0] : closestName(first, groups);
  if (group === null || group === undefined) return `${named}.`;
  const members = commandsOf(group);
  // The group's command whose remaining words are closest to as many words typed.
  const ranked = members
    .map((command) => {
      const rest = command.name.slice(1).join(" ");
      const typed = words.slice(1, command.name.length).join(" ");
      return {
        command,
        edits: closestName(typed, [rest]) === null ? null : editDistance(typed, rest),
      };
    })
    .filter((candidate) => candidate.edits !== null)
    .sort((a, b) => (a.edits ?? 0) - (b.edits ?? 0));
  const nearest = words.length < 2 ? null : (ranked[0]?.command ?? null);
  if (nearest) return `${named}; did you mean ${nearest.name.join(" ")}?`;
  if (group !== words[0]) return `${named}; did you mean ${group}?`;
  return `${named}; did you mean ${members.map((c) => c.name.join(" ")).join(", ")}?`;
}

function parseCommandLine(
  command: Command,
  rest: string[],
): { flags: Flags; positionals: string[] } {
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        // parseArgs takes how each option is read; the help text is for --help.
        ...Object.fromEntries(
          Object.entries(command.options).map(([name, { help: _help, value: _value, ...read }]) => [
            name,
            read,
          ]),
        ),
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const { code, message } = error as Error & { code?: string };
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== undefined) {
      const suggestion = closestFlag(command, unknown);
      throw new UsageError(
        `unknown option ${unknown}${suggestion ? `; did you mean ${suggestion}?` : "."}`,
      );
    }
    throw new UsageError(message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help === true) return { flags, positionals };
  const missing = (command.required ?? []).filter((name) => flags[name] === undefined);
  if (missing.length > 0) {
    throw new UsageError(`missing ${missing.map((name) => `--${name}`).join(", ")}.`);
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (positionals.length < min || positionals.length > max) {
    throw new UsageError(
      max === 0
        ? `unexpected argument ${JSON.stringify(positionals[0])}.`
        : `expected ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, got ${positionals.length}.`,
    );
  }
  command.validate?.(flags, positionals);
  return { flags, positionals };
}

/** `tidings help [COMMAND…]`, `tidings --help`, `tidings keys --help`: help on stdout, exit 0. */
function help(io: CliIo, json: boolean, words: string[]): number {
  if (words.length === 0) {
    writeHelp(io.stdout, json, overallHelp());
    return EXIT.ok;
  }
  const found = findCommand(words);
  if (found && found.rest.length === 0) {
    writeHelp(io.stdout, json, commandHelp(found.command));
    return EXIT.ok;
  }
  const group = commandsOf(words[0]);
  if (words.length === 1 && group.length > 0) {
    writeHelp(io.stdout, json, overallHelp(group));
    return EXIT.ok;
  }
  writeProblem(io.stderr, json, "usage", unknownCommand(words));
  if (!json) io.stderr.write(`\n${overallHelp().text}\n`);
  return EXIT.usage;
}

/**
 * Runs the `tidings` command line and resolves with the exit code. Everything it touches comes
 * through `io`, so tests run it in-process and `bin.ts` runs it for the real process.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes("--json");
  // `--json` and `--env-file FILE` may come anywhere, even before the command's name.
  let args: string[];
  let envFile: string | null;
  try {
    ({ argv: args, envFile } = takeEnvFile(argv.filter((arg) => arg !== "--json")));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeProblem(io.stderr, json, "usage", error.message);
    return EXIT.usage;
  }
  const isHelpFlag = (arg: string) => arg === "--help" || arg === "-h";
  if (args.length === 0) {
    writeProblem(io.stderr, json, "usage", "a command is needed.");
    if (!json) io.stderr.write(`\n${overallHelp().text}\n`);
    return EXIT.usage;
  }
  if (answerVersion(argv, io.stdout)) return EXIT.ok;
  if (args[0] === "help") return help(io, json, args.slice(1));
  if (args.every(isHelpFlag)) return help(io, json, []);
  const found = findCommand(args);
  // `tidings keys --help` lists the group's commands.
  if (!found && args.some(isHelpFlag) && commandsOf(args[0]).length > 0) {
    return help(io, json, [args[0] ?? ""]);
  }
  let parsed: { flags: Flags; positionals: string[] };
  try {
    if (!found) throw new UsageError(unknownCommand(args));
    parsed = parseCommandLine(found.command, found.rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeProblem(io.stderr, json, "usage", error.message);
    if (!json) {
      io.stderr.write(`\n${found ? commandHelp(found.command).text : overallHelp().text}\n`);
    }
    return EXIT.usage;
  }
  const { command } = found;
  if (parsed.flags.help === true) {
    writeHelp(io.stdout, json, commandHelp(command));
    return EXIT.ok;
  }

  let env = io.env;
  let envFilePath: string | null = null;
  if (envFile !== null) {
    const withFile = withEnvFile(io.env, envFile, io.cwd);
    if (withFile.isErr()) {
      writeProblem(io.stderr, json, "configuration", withFile.error);
      return EXIT.failure;
    }
    ({ env, path: envFilePath } = withFile.value);
  }
  const read = readConfig(env, io.cwd);
  if (read.isErr()) {
    for (const message of read.error) writeProblem(io.stderr, json, "configuration", message);
    return EXIT.failure;
  }
  const config = read.value;
  const logger = createLogger(config.logLevel, command.logsToStdout ? io.stdout : io.stderr);
  let runtime: Runtime | null = null;
  let tracing: Tracing | null = null;
  try {
    if (command.observed) tracing = await startTracing(env, logger);
    const metrics = command.observed?.servesMetrics(config) ?? false;
    runtime = await openRuntime(config, logger, {
      metrics,
      inboundSink: io.inboundSink,
      clock: io.clock,
    });
    const outcome = await command.run({
      io,
      json,
      config,
      envFile: envFilePath,
      logger,
      runtime,
      ...parsed,
    });
    if (outcome.isErr()) {
      writeError(io.stderr, json, withFlagNames(outcome.error, command, json));
      return EXIT.failure;
    }
    const answer = outcome.value;
    if (!("json" in answer)) return answer.exitCode;
    writeResult(io.stdout, json, answer.json, answer.human);
    return answer.exitCode ?? EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      writeProblem(io.stderr, json, "usage", error.message);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      writeProblem(io.stderr, json, "configuration", error.message);
      return EXIT.failure;
    }
    if (command.logsToStdout) {
      // `serve` and `worker` write nothing but JSON lines, their last one included.
      logger.error("failed", { error: error instanceof Error ? error.message : String(error) });
      return EXIT.failure;
    }
    writeProblem(io.stderr, json, "failed", error instanceof Error ? error.message : String(error));
    logger.debug("command failed", { error });
    return EXIT.failure;
  } finally {
    await runtime?.close();
    await tracing?.stop();
  }
}
