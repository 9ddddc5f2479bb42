import { PROVIDER_TIMEOUT_MS, type SettingDeclaration } from "@tidings/core";

/**
 * The server's own settings, declared once, in the order docs/configuration.md lists them (a
 * test holds the two together). `default` is what an unset variable means; in parentheses, a
 * description rather than a value. Each provider's `TIDINGS_{NAME}_*` settings are declared by
 * its plugin (see provider-registry.ts).
 */
export const SERVER_SETTINGS = [
  {
    env: "TIDINGS_DATABASE_URL",
    kind: "text",
    required: false,
    default: "sqlite:./tidings.db",
    doc: "sqlite:PATH or postgres://…",
  },
  {
    env: "TIDINGS_SQLITE_SYNCHRONOUS",
    kind: "choice",
    required: false,
    default: "normal",
    doc: "normal, or full to survive power loss too",
  },
  {
    env: "PORT",
    kind: "integer",
    required: false,
    default: "3000",
    doc: "the port serve listens on",
  },
  {
    env: "HOST",
    kind: "text",
    required: false,
    default: "127.0.0.1",
    doc: "the address serve listens on",
  },
  {
    env: "TIDINGS_SECRET_KEY",
    kind: "secret",
    required: false,
    default: "(a key file beside the SQLite database)",
    doc: "the 32-byte key that encrypts secrets at rest",
  },
  {
    env: "TIDINGS_DEV",
    kind: "flag",
    required: false,
    default: "0",
    doc: "1 for development: http and loopback URLs, local fakes",
  },
  {
    env: "TIDINGS_PROVIDER",
    kind: "choice",
    required: false,
    default: "sandbox",
    doc: "the provider of both channels",
  },
  {
    env: "TIDINGS_PROVIDER_VIBER",
    kind: "choice",
    required: false,
    default: "(TIDINGS_PROVIDER)",
    doc: "the Viber channel's provider, when it differs",
  },
  {
    env: "TIDINGS_PROVIDER_SMS",
    kind: "choice",
    required: false,
    default: "(TIDINGS_PROVIDER)",
    doc: "the SMS channel's provider, when it differs",
  },
  {
    env: "TIDINGS_PROVIDER_TIMEOUT_MS",
    kind: "integer",
    required: false,
    default: String(PROVIDER_TIMEOUT_MS),
    doc: "the deadline of one send to a real provider, retries included",
  },
  {
    env: "TIDINGS_FAILOVER_ON_TIMEOUT",
    kind: "flag",
    required: false,
    default: "0",
    doc: "1: a timeout or a 5xx fails over to the next provider of a list too",
  },
  {
    // One variable per provider of a failover list (TIDINGS_VONAGE_SENDERS), read by failover-config.ts.
    env: "TIDINGS_<PROVIDER>_SENDERS",
    kind: "json",
    required: false,
    default: "(none)",
    doc: "for failover: a campaign's sender → the sender on that provider's account",
  },
  {
    env: "TIDINGS_SANDBOX_DELAY_MS",
    kind: "integer",
    required: false,
    default: "1000",
    doc: "how long the sandbox waits before each report",
  },
  {
    env: "TIDINGS_SEND_RATE_LIMIT",
    kind: "text",
    required: false,
    default: "100/60s",
    doc: "sends per API key per sliding window",
  },
  {
    env: "TIDINGS_WEBHOOK_TEST_RATE_LIMIT",
    kind: "text",
    required: false,
    default: "10/60s",
    doc: "test webhooks per API key per sliding window",
  },
  {
    env: "TIDINGS_WEBHOOK_BACKOFF_BASE_MS",
    kind: "integer",
    required: false,
    default: "30000",
    doc: "the first retry delay of a failed webhook delivery",
  },
  {
    env: "TIDINGS_WEBHOOK_BACKOFF_CAP_MS",
    kind: "integer",
    required: false,
    default: "21600000",
    doc: "the longest retry delay",
  },
  {
    env: "TIDINGS_WEBHOOK_RETRY_WINDOW_MS",
    kind: "integer",
    required: false,
    default: "259200000",
    doc: "how long a delivery is retried",
  },
  {
    env: "TIDINGS_WEBHOOK_DISABLE_AFTER_MS",
    kind: "integer",
    required: false,
    default: "432000000",
    doc: "how long a subscription may fail before it is turned off",
  },
  {
    env: "TIDINGS_WEBHOOK_LEASE_MS",
    kind: "integer",
    required: false,
    default: "60000",
    doc: "how long a worker holds a claimed delivery",
  },
  {
    env: "TIDINGS_STARTUP_TIMEOUT_MS",
    kind: "integer",
    required: false,
    default: "30000",
    doc: "how long start-up waits for the database",
  },
  {
    env: "TIDINGS_STORAGE_TIMEOUT_MS",
    kind: "integer",
    required: false,
    default: "2000",
    doc: "how long a request may wait on the database",
  },
  {
    env: "TIDINGS_RETENTION",
    kind: "duration",
    required: false,
    default: "90d",
    doc: "how long a message is kept",
  },
  {
    env: "TIDINGS_RETENTION_ERASE_DELETED_DAYS",
    kind: "integer",
    required: false,
    default: "(off)",
    doc: "erases a soft-deleted profile this many days after the delete",
  },
  {
    env: "TIDINGS_IDEMPOTENCY_TTL",
    kind: "duration",
    required: false,
    default: "24h",
    doc: "how long an Idempotency-Key replays its answer",
  },
  {
    env: "TIDINGS_LOG_LEVEL",
    kind: "choice",
    required: false,
    default: "info",
    doc: "debug, info, warn, error or silent",
  },
  {
    env: "TIDINGS_KEYWORDS",
    kind: "json",
    required: false,
    default: "(none)",
    doc: "words added to the opt-out, opt-in and help keywords",
  },
  {
    env: "TIDINGS_PUBLIC_URL",
    kind: "url",
    required: false,
    default: "http://127.0.0.1:$PORT",
    doc: "the address people and providers reach the server at",
  },
  {
    env: "TIDINGS_LINK_BASE_URL",
    kind: "url",
    required: false,
    default: "(TIDINGS_PUBLIC_URL)",
    doc: "where tracked short links point",
  },
  {
    env: "TIDINGS_TRUSTED_PROXIES",
    kind: "list",
    required: false,
    default: "(none)",
    doc: "reverse proxies whose X-Forwarded-For is believed",
  },
  {
    env: "TIDINGS_CONSOLE",
    kind: "flag",
    required: false,
    default: "1",
    doc: "0 stops serve from mounting the console",
  },
  {
    env: "TIDINGS_METRICS",
    kind: "flag",
    required: false,
    default: "1",
    doc: "0 turns the Prometheus metrics off",
  },
  {
    env: "TIDINGS_METRICS_TOKEN",
    kind: "secret",
    required: false,
    default: "(none)",
    doc: "the bearer token a scrape of /metrics must send",
  },
  {
    env: "TIDINGS_METRICS_PORT",
    kind: "integer",
    required: false,
    default: "(none)",
    doc: "the port worker serves /metrics on",
  },
] as const satisfies readonly SettingDeclaration[];

/** A server setting's variable. */
export type ServerSettingName = (typeof SERVER_SETTINGS)[number]["env"];

/** Every server variable with its default, in the order docs/configuration.md lists them. */
export const CONFIG_DEFAULTS = Object.fromEntries(
  SERVER_SETTINGS.map((setting) => [setting.env, setting.default]),
) as { readonly [Name in ServerSettingName]: string };
