import { accessSync, constants, existsSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, isAbsolute, resolve } from "node:path";
import {
  defaultConfig,
  type KeywordLists,
  parseKeywords,
  parseSecretKey,
  parseUrl,
} from "@tidings/core";
import { err, ok, type Result } from "neverthrow";
import { formatDuration, parseDuration } from "./duration.js";
import { type ProviderConfig, readProviderConfig } from "./provider-config.js";
import { CONFIG_DEFAULTS, type ServerSettingName } from "./server-settings.js";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** Where the data lives: a SQLite file or a PostgreSQL database. */
export type DatabaseConfig =
  | {
      kind: "sqlite";
      path: string;
      /** `TIDINGS_SQLITE_SYNCHRONOUS`: `full` also survives power loss, at an fsync per commit. */
      synchronous?: "normal" | "full" | undefined;
    }
  | { kind: "postgres"; url: string };

/** The server's configuration, read from the environment (docs/configuration.md). */
export interface ServerConfig {
  database: DatabaseConfig;
  port: number;
  host: string;
  /** `TIDINGS_SECRET_KEY`, still as text; `null` when unset. */
  secretKey: string | null;
  dev: boolean;
  /** Which provider carries each channel, and the real providers' settings. */
  providers: ProviderConfig;
  sandboxDelayMs: number;
  sendRateLimit: number;
  sendRateWindowMs: number;
  webhookTestRateLimit: number;
  webhookTestRateWindowMs: number;
  webhookBackoffBaseMs: number;
  webhookBackoffCapMs: number;
  webhookRetryWindowMs: number;
  /** `TIDINGS_WEBHOOK_DISABLE_AFTER_MS`: how long a subscription may fail before it is turned off. */
  webhookDisableAfterMs: number;
  /** How long a claimed webhook delivery stays leased to one engine before others may take it. */
  webhookLeaseMs: number;
  /** `TIDINGS_RETENTION`: how long messages, their events, deliveries and attempts are kept. */
  retentionMs: number;
  /**
   * `TIDINGS_RETENTION_ERASE_DELETED_DAYS`: how long after its soft delete a profile is erased,
   * in ms; `null` (unset or empty, the default): never by retention.
   */
  eraseDeletedAfterMs: number | null;
  /** `TIDINGS_IDEMPOTENCY_TTL`: how long an Idempotency-Key is remembered. */
  idempotencyTtlMs: number;
  logLevel: LogLevel;
  /** `TIDINGS_PUBLIC_URL` without a trailing slash, or `null`: where users reach the server. */
  publicUrl: string | null;
  /**
   * `TIDINGS_LINK_BASE_URL` without a trailing slash, or `null`: where tracked short links
   * point (`{base}/l/{code}`); the public URL when unset.
   */
  linkBaseUrl: string | null;
  /** `TIDINGS_TRUSTED_PROXIES`: addresses and CIDR ranges whose `X-Forwarded-For` is believed. */
  trustedProxies: string[];
  /** Whether `serve` mounts the web console at `/console` (`TIDINGS_CONSOLE`, on by default). */
  console: boolean;
  /** Whether Prometheus metrics are served at `/metrics` (`TIDINGS_METRICS`, on by default). */
  metrics: boolean;
  /** `TIDINGS_KEYWORDS`: words added to the default opt-out, opt-in and help keywords. */
  keywords: Partial<KeywordLists>;
  /** `TIDINGS_METRICS_TOKEN`: the bearer token a scrape must send; `null`: none needed. */
  metricsToken: string | null;
  /** `TIDINGS_METRICS_PORT`: where `worker` serves `/metrics` (0 picks a port); `null`: it does not. */
  metricsPort: number | null;
  /** `TIDINGS_STARTUP_TIMEOUT_MS`: how long start-up retries a database it cannot reach. */
  startupTimeoutMs: number;
  /**
   * `TIDINGS_STORAGE_TIMEOUT_MS`: how long a request may wait on storage in all, and any one
   * wait (a connection, a statement's answer, SQLite's write lock) at most.
   */
  storageTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

export { CONFIG_DEFAULTS } from "./server-settings.js";

/**
 * `TIDINGS_STORAGE_TIMEOUT_MS`'s default: a request that meets a database that stopped
 * answering gives up on it within this, so it is answered 503 well under 5 s.
 */
export const DEFAULT_STORAGE_TIMEOUT_MS = Number(CONFIG_DEFAULTS.TIDINGS_STORAGE_TIMEOUT_MS);

/**
 * The shortest lease the delivery engine accepts: longer than the 15 s webhook timeout plus the
 * engine's 5 s margin, so an attempt always ends (and is recorded) while its lease still holds.
 */
const MIN_WEBHOOK_LEASE_MS = defaultConfig.webhookTimeoutMs + 5_000 + 1;

/** The longest duration a setting takes; anything longer is surely a typo. */
const MAX_DURATION_MS = 36_500 * 86_400_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads the configuration. Every bad value is reported, each naming its variable, so start-up
 * stops with the whole list at once: that includes a malformed `TIDINGS_SECRET_KEY`, one
 * missing on PostgreSQL, and a SQLite path whose directory does not exist.
 */
export function readConfig(env: Env, cwd = process.cwd()): Result<ServerConfig, string[]> {
  const errors: string[] = [];
  /** A declared variable's trimmed value, `null` when unset or empty. */
  const raw = (name: ServerSettingName): string | null => env[name]?.trim() || null;
  const get = (name: ServerSettingName): string => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? CONFIG_DEFAULTS[name] : value.trim();
  };
  const integer = (name: ServerSettingName, min: number, max: number): number => {
    const text = get(name);
    const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      errors.push(
        `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}.`,
      );
      return min;
    }
    return value;
  };
  const duration = (name: ServerSettingName, min: number): number => {
    const text = get(name);
    const value = parseDuration(text);
    if (value === null || value < min || value > MAX_DURATION_MS) {
      errors.push(
        `${name} must be a duration such as 90d, 24h, 30m, 45s or 1500ms, from ${formatDuration(min)} to 100 years, not ${JSON.stringify(text)}.`,
      );
      return min;
    }
    return value;
  };

  const parsedDatabase = parseDatabaseUrl(get("TIDINGS_DATABASE_URL"), cwd);
  const database = parsedDatabase.unwrapOr(null);
  if (parsedDatabase.isErr()) errors.push(`TIDINGS_DATABASE_URL ${parsedDatabase.error}`);
  const directoryProblem = database === null ? null : databaseDirectoryProblem(database);
  if (directoryProblem !== null) errors.push(directoryProblem);

  const synchronous = get("TIDINGS_SQLITE_SYNCHRONOUS");
  if (synchronous !== "normal" && synchronous !== "full") {
    errors.push(
      `TIDINGS_SQLITE_SYNCHRONOUS must be normal or full, not ${JSON.stringify(synchronous)}.`,
    );
  }

  const host = get("HOST");
  const hostChecked = checkHost(host);
  if (hostChecked.isErr()) errors.push(`HOST ${hostChecked.error}`);

  const dev = get("TIDINGS_DEV");
  if (!["0", "1", "true", "false"].includes(dev)) {
    errors.push(`TIDINGS_DEV must be 1 or 0, not ${JSON.stringify(dev)}.`);
  }
  /** A rate limit such as `100/60s`: how many per sliding window, and the window in ms. */
  const rate = (
    name: "TIDINGS_SEND_RATE_LIMIT" | "TIDINGS_WEBHOOK_TEST_RATE_LIMIT",
    counted: string,
  ): { limit: number; windowMs: number } => {
    const parts = /^([0-9]{1,7})\/([0-9]{1,9})(ms|s|m|h)$/.exec(get(name));
    const limit = parts ? Number(parts[1]) : 0;
    const windowMs = parts ? Number(parts[2]) * (UNITS[parts[3]!] ?? 1) : 0;
    if (!parts || limit < 1 || windowMs < 1) {
      errors.push(
        `${name} must look like ${CONFIG_DEFAULTS[name]} (${counted} per window; units ms, s, m, h), not ${JSON.stringify(get(name))}.`,
      );
    }
    return { limit, windowMs };
  };
  const sendRate = rate("TIDINGS_SEND_RATE_LIMIT", "sends");
  const webhookTestRate = rate("TIDINGS_WEBHOOK_TEST_RATE_LIMIT", "test webhooks");
  const logLevel = get("TIDINGS_LOG_LEVEL");
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    errors.push(
      `TIDINGS_LOG_LEVEL must be one of debug, info, warn, error, silent, not ${JSON.stringify(logLevel)}.`,
    );
  }
  const publicUrl = publicUrlOf(raw("TIDINGS_PUBLIC_URL"), errors);
  const linkBaseUrl = publicUrlOf(
    raw("TIDINGS_LINK_BASE_URL"),
    errors,
    "TIDINGS_LINK_BASE_URL",
    "https://t.example.com",
  );
  const trustedProxies = (raw("TIDINGS_TRUSTED_PROXIES") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of trustedProxies) {
    if (!isProxyEntry(entry)) {
      errors.push(
        `TIDINGS_TRUSTED_PROXIES must list IP addresses or CIDR ranges separated by commas (such as 10.0.0.1, 192.168.0.0/16), not ${JSON.stringify(entry)}.`,
      );
    }
  }
  const providers = readProviderConfig(
    env,
    { dev: dev === "1" || dev === "true", publicUrl },
    errors,
  );
  const consoleFlag = get("TIDINGS_CONSOLE");
  if (!["0", "1", "true", "false"].includes(consoleFlag)) {
    errors.push(`TIDINGS_CONSOLE must be 1 or 0, not ${JSON.stringify(consoleFlag)}.`);
  }
  const metricsFlag = get("TIDINGS_METRICS");
  if (!["0", "1", "true", "false"].includes(metricsFlag)) {
    errors.push(`TIDINGS_METRICS must be 1 or 0, not ${JSON.stringify(metricsFlag)}.`);
  }
  const keywordsText = raw("TIDINGS_KEYWORDS");
  let keywords: Partial<KeywordLists> = {};
  if (keywordsText !== null) {
    const parsed = parseKeywords(keywordsText);
    if (parsed.isErr()) errors.push(`TIDINGS_KEYWORDS ${parsed.error}`);
    else keywords = parsed.value;
  }
  const metricsToken = raw("TIDINGS_METRICS_TOKEN");
  const eraseDaysText = raw("TIDINGS_RETENTION_ERASE_DELETED_DAYS");
  const eraseDeletedAfterMs =
    eraseDaysText === null
      ? null
      : integer("TIDINGS_RETENTION_ERASE_DELETED_DAYS", 0, 36_500) * 86_400_000;
  const metricsPortText = raw("TIDINGS_METRICS_PORT");
  const metricsPort = metricsPortText === null ? null : integer("TIDINGS_METRICS_PORT", 0, 65_535);
  const secretKey = raw("TIDINGS_SECRET_KEY");
  if (secretKey !== null) {
    const parsed = parseSecretKey(secretKey);
    if (parsed.isErr()) errors.push(`TIDINGS_SECRET_KEY ${parsed.error}`);
  } else if (database?.kind === "postgres") {
    errors.push(
      "TIDINGS_SECRET_KEY must be set when TIDINGS_DATABASE_URL is PostgreSQL, so every process seals secrets with the same key (32 bytes as base64 or 64 hex characters).",
    );
  }

  const config: ServerConfig = {
    database:
      database === null
        ? { kind: "sqlite", path: "" }
        : database.kind === "sqlite"
          ? { ...database, synchronous: synchronous === "full" ? "full" : "normal" }
          : database,
    port: integer("PORT", 0, 65_535),
    host,
    secretKey,
    dev: dev === "1" || dev === "true",
    providers,
    keywords,
    sandboxDelayMs: integer("TIDINGS_SANDBOX_DELAY_MS", 0, 86_400_000),
    sendRateLimit: sendRate.limit,
    sendRateWindowMs: sendRate.windowMs,
    webhookTestRateLimit: webhookTestRate.limit,
    webhookTestRateWindowMs: webhookTestRate.windowMs,
    webhookBackoffBaseMs: integer("TIDINGS_WEBHOOK_BACKOFF_BASE_MS", 1, 86_400_000),
    webhookBackoffCapMs: integer("TIDINGS_WEBHOOK_BACKOFF_CAP_MS", 1, 7 * 86_400_000),
    webhookRetryWindowMs: integer("TIDINGS_WEBHOOK_RETRY_WINDOW_MS", 1, 30 * 86_400_000),
    webhookDisableAfterMs: integer("TIDINGS_WEBHOOK_DISABLE_AFTER_MS", 1, 365 * 86_400_000),
    webhookLeaseMs: integer("TIDINGS_WEBHOOK_LEASE_MS", MIN_WEBHOOK_LEASE_MS, 86_400_000),
    retentionMs: duration("TIDINGS_RETENTION", 1000),
    eraseDeletedAfterMs,
    idempotencyTtlMs: duration("TIDINGS_IDEMPOTENCY_TTL", 1000),
    logLevel: logLevel as LogLevel,
    publicUrl,
    linkBaseUrl,
    trustedProxies,
    console: consoleFlag === "1" || consoleFlag === "true",
    metrics: metricsFlag === "1" || metricsFlag === "true",
    metricsToken,
    metricsPort,
    startupTimeoutMs: integer("TIDINGS_STARTUP_TIMEOUT_MS", 0, 3_600_000),
    storageTimeoutMs: integer("TIDINGS_STORAGE_TIMEOUT_MS", 100, 600_000),
  };
  const backoffRead = !errors.some((e) => e.startsWith("TIDINGS_WEBHOOK_BACKOFF_"));
  if (backoffRead && config.webhookBackoffCapMs < config.webhookBackoffBaseMs) {
    errors.push(
      "TIDINGS_WEBHOOK_BACKOFF_CAP_MS must not be smaller than TIDINGS_WEBHOOK_BACKOFF_BASE_MS.",
    );
  }
  return errors.length > 0 ? err(errors) : ok(config);
}

/** An address, or an address with a prefix length that fits its family (`10.0.0.0/8`). */
function isProxyEntry(entry: string): boolean {
  const [address = "", bits, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const prefix = /^[0-9]{1,3}$/.test(bits) ? Number(bits) : -1;
  return prefix >= 0 && prefix <= (family === 4 ? 32 : 128);
}

/** An http(s) URL without query or fragment, kept without its trailing slash; else an error. */
function publicUrlOf(
  text: string | null,
  errors: string[],
  name = "TIDINGS_PUBLIC_URL",
  example = "https://tidings.example.com",
): string | null {
  if (text === null) return null;
  const url = parseUrl(text);
  if (!url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash) {
    errors.push(
      `${name} must be an http or https URL such as ${example}, without query or fragment, not ${JSON.stringify(text)}.`,
    );
    return null;
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** `sqlite:PATH` (relative to `cwd` or absolute) or `postgres://…`; the error completes a sentence. */
export function parseDatabaseUrl(url: string, cwd: string): Result<DatabaseConfig, string> {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return err(`is not a valid PostgreSQL URL: ${JSON.stringify(url)}.`);
    }
    const prepared = parsed.searchParams.get("prepared_statements");
    if (prepared !== null && prepared !== "true" && prepared !== "false") {
      return err(`has prepared_statements=${prepared}; it takes true (the default) or false.`);
    }
    const keyMemory = parsed.searchParams.get("key_memory_ms");
    if (keyMemory !== null && !/^\d{1,9}$/.test(keyMemory)) {
      return err(
        `has key_memory_ms=${keyMemory}; it takes a whole number of milliseconds (5000 by default, 0 for none).`,
      );
    }
    return ok({ kind: "postgres", url });
  }
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (path === "") return err("needs a file path after sqlite:, e.g. sqlite:./tidings.db.");
    if (path === ":memory:") return ok({ kind: "sqlite", path });
    return ok({ kind: "sqlite", path: isAbsolute(path) ? path : resolve(cwd, path) });
  }
  return err(`must be sqlite:PATH or postgres://…, not ${JSON.stringify(url)}.`);
}

/**
 * Why a SQLite database cannot be kept where `TIDINGS_DATABASE_URL` points, or null: its
 * directory must exist, and this process must be allowed to write there (the database, SQLite's
 * journal files and the key file are made in it) and to the files of it already there. A
 * read-only file system is not refused here: start-up waits for it to turn writable
 * (`TIDINGS_STARTUP_TIMEOUT_MS`), as a disk remounted read-only after an error may.
 */
export function databaseDirectoryProblem(database: DatabaseConfig): string | null {
  if (database.kind !== "sqlite" || database.path === ":memory:") return null;
  const directory = dirname(database.path);
  if (!existsSync(directory)) {
    return `TIDINGS_DATABASE_URL points into ${directory}, which does not exist.`;
  }
  const files: Array<[string, number]> = [
    [directory, constants.W_OK | constants.X_OK],
    [database.path, constants.R_OK | constants.W_OK],
    [`${database.path}-wal`, constants.R_OK | constants.W_OK],
    [`${database.path}-shm`, constants.R_OK | constants.W_OK],
    [`${database.path}.key`, constants.R_OK],
  ];
  for (const [file, mode] of files) {
    try {
      accessSync(file, mode);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EPERM") continue;
      const user = `this process (uid ${process.getuid?.() ?? "?"})`;
      const what =
        file === directory
          ? `${user} may not write to it: the database, its journal and the key file are made there`
          : `${user} may not ${mode & constants.W_OK ? "read and write" : "read"} ${file} in it`;
      return `TIDINGS_DATABASE_URL points into ${directory}, but ${what}. Mount a volume there that this user may write to, or give the directory and its files to that user (chown).`;
    }
  }
  return null;
}

const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/**
 * Ok when `host` can be listened on, else why not: it must be an IP address or a host name (RFC 1123
 * labels). A name ending in a numeric label (`1.2.3`) is refused, as the resolver would read it
 * as an abbreviated IPv4 address.
 */
export function checkHost(host: string): Result<void, string> {
  if (isIP(host) !== 0) return ok(undefined);
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  const labels = name.split(".");
  const valid =
    name.length > 0 &&
    name.length <= 253 &&
    labels.every((label) => HOST_LABEL.test(label)) &&
    !/^[0-9]+$/.test(labels.at(-1) ?? "");
  if (valid) return ok(undefined);
  const hint = /^\[.*\]$/.test(host) ? " Write an IPv6 address without brackets." : "";
  return err(
    `must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name (such as localhost), not ${JSON.stringify(host)}.${hint}`,
  );
}
