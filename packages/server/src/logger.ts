import type { Writable } from "node:stream";
import type { LogLevel } from "./config.js";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;

/** `deliveryId` → `delivery_id`; a name already in snake_case is kept. */
export const snakeCase = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A JSON-lines logger: one object per line with `time`, `level` and `msg`. Every field name is
 * snake_case, as in the API's JSON: a field given in camelCase (`deliveryId`, from the core's
 * records) is written `delivery_id`.
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** Writes log lines at or above `level` to `out`. Errors are serialized with their stack. */
export function createLogger(level: LogLevel, out: Writable): Logger {
  const write = (at: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (RANK[at] < RANK[level]) return;
    const line: LogFields = { time: new Date().toISOString(), level: at, msg };
    for (const [key, value] of Object.entries(fields ?? {})) {
      line[snakeCase(key)] =
        value instanceof Error
          ? { name: value.name, message: value.message, stack: value.stack }
          : value;
    }
    out.write(`${JSON.stringify(line)}\n`);
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
  };
}

/**
 * Logs a background round that failed: an error at `error` level with its stack, but a storage
 * fault (the database away, full or read-only) only at `debug`, without a stack: the outage
 * itself is logged once when it starts and once when it ends, and the round tries again.
 */
export function logRoundFailure(logger: Logger, msg: string, error: unknown): void {
  const isFault = error instanceof Error && error.name === "StorageUnavailableError";
  if (isFault) logger.debug(msg, { error: error.message });
  else logger.error(msg, { error });
}
