import { hkdfSync } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generateSecretKey, parseSecretKey } from "@tidings/core";
import type { DatabaseConfig } from "./config.js";
import type { Logger } from "./logger.js";

/**
 * The key that seals secrets at rest: `TIDINGS_SECRET_KEY` when set; otherwise, on SQLite, a
 * key file beside the database (`<database>.key`, mode 0600), created on first use and reused.
 * PostgreSQL deployments run several processes, which must share one key, so they must set it.
 * The process that creates the key file says so in its log, once: the file must be backed up
 * with the database, or the secrets sealed with it are lost.
 */
export function loadSecretKey(
  secretKey: string | null,
  database: DatabaseConfig,
  logger?: Logger,
): Buffer {
  if (secretKey !== null) {
    const parsed = parseSecretKey(secretKey);
    if (parsed.isErr()) throw new ConfigError(`TIDINGS_SECRET_KEY ${parsed.error}`);
    return parsed.value;
  }
  if (database.kind === "postgres") {
    throw new ConfigError(
      "TIDINGS_SECRET_KEY must be set when TIDINGS_DATABASE_URL is PostgreSQL, so every process seals secrets with the same key (32 bytes as base64 or 64 hex characters).",
    );
  }
  if (database.path === ":memory:") return parseKeyOrThrow(generateSecretKey(), "a generated key");
  const file = `${database.path}.key`;
  if (!existsSync(file)) {
    // `wx` fails if another process created the file first; then that file is read below.
    try {
      writeFileSync(file, `${generateSecretKey()}\n`, { mode: 0o600, flag: "wx" });
      logger?.info("secret key created", {
        file,
        note: "back it up with the database: the secrets stored there are sealed with it",
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EROFS" || code === "EACCES" || code === "EPERM") {
        throw new ConfigError(
          `TIDINGS_SECRET_KEY is not set and the key file ${file} cannot be created (${code === "EROFS" ? "read-only file system" : "permission denied"}): mount a writable volume at ${dirname(file)}, or set TIDINGS_SECRET_KEY.`,
        );
      }
      if (code !== "EEXIST") throw error;
    }
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return parseKeyOrThrow(readFileSync(file, "utf8").trim(), `the key file ${file}`);
}

function parseKeyOrThrow(text: string, where: string): Buffer {
  const parsed = parseSecretKey(text);
  if (parsed.isErr()) throw new ConfigError(`${where} ${parsed.error}`);
  return parsed.value;
}

/** A configuration problem: start-up stops with this message and a non-zero exit code. */
/**
 * The key of the keyed hash under which abuse protection's counters name a phone number,
 * derived from the secret key (HKDF-SHA256), so every process of a deployment agrees on it and
 * the secret key itself is never used for two purposes.
 */
export function numberHashKeyOf(secretKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    hkdfSync("sha256", secretKey, new Uint8Array(0), "tidings number hash", 32),
  );
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
