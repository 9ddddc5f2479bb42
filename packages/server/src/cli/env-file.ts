import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { err, ok, type Result } from "neverthrow";
import { UsageError } from "./usage-error.js";

/** The option every command takes: settings from a file as well as the environment. */
export const ENV_FILE_FLAG = "--env-file";

/**
 * Takes `--env-file FILE` (or `--env-file=FILE`) out of the command line, wherever it stands,
 * as `--json` is: the file is read before a command is chosen. Throws a `UsageError` when the
 * file is missing or given twice.
 */
export function takeEnvFile(argv: readonly string[]): { argv: string[]; envFile: string | null } {
  const rest: string[] = [];
  let envFile: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    let value: string | undefined;
    if (arg === ENV_FILE_FLAG) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith("-")) {
        throw new UsageError(`${ENV_FILE_FLAG} needs a file: ${ENV_FILE_FLAG} FILE.`);
      }
      i += 1;
    } else if (arg.startsWith(`${ENV_FILE_FLAG}=`)) {
      value = arg.slice(ENV_FILE_FLAG.length + 1);
      if (value === "")
        throw new UsageError(`${ENV_FILE_FLAG} needs a file: ${ENV_FILE_FLAG} FILE.`);
    } else {
      rest.push(arg);
      continue;
    }
    if (envFile !== null) throw new UsageError(`${ENV_FILE_FLAG} is given twice; give one file.`);
    envFile = value;
  }
  return { argv: rest, envFile };
}

/**
 * The environment a command reads with `--env-file FILE`: the file's variables (`NAME=value`
 * lines, as Node's own `--env-file` reads them), under the process's own environment, which
 * wins where both set a variable, as with Node's `--env-file`. `path` is the file's absolute
 * path, for saying which configuration was read.
 */
export function withEnvFile(
  env: Record<string, string | undefined>,
  file: string,
  cwd: string,
): Result<{ env: Record<string, string | undefined>; path: string }, string> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return err(`${ENV_FILE_FLAG} ${file} cannot be read (${reason}).`);
  }
  const fromFile = parseEnv(text);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) merged[name] = value;
  }
  return ok({ env: merged, path });
}
