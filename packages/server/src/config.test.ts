import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok } from "neverthrow";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_DEFAULTS, checkHost, parseDatabaseUrl, readConfig } from "./config.js";

// The working directory exists: a SQLite database in a missing directory is refused.
const cwd = mkdtempSync(join(tmpdir(), "tidings-config-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const read = (env: Record<string, string>) => readConfig(env, cwd);
const KEY = Buffer.alloc(32, 7).toString("base64");

const errorsOf = (env: Record<string, string>): string[] => {
  const result = read(env);
  if (result.isOk()) throw new Error("expected the configuration to be refused");
  return result.error;
};

describe("readConfig", () => {
  it("gives every variable its documented default when the environment is empty", () => {
    const result = read({});
    expect(result).toEqual(
      ok({
        database: { kind: "sqlite", path: join(cwd, "tidings.db"), synchronous: "normal" },
        port: 3000,
        host: "127.0.0.1",
        secretKey: null,
        dev: false,
        providers: {
          viber: "sandbox",
          sms: "sandbox",
          timeoutMs: 10_000,
          twilio: null,
          infobip: null,
          vonage: null,
          telnyx: null,
          failover: { viber: ["sandbox"], sms: ["sandbox"], onTimeout: false, senders: {} },
        },
        sandboxDelayMs: 1000,
        sendRateLimit: 100,
        sendRateWindowMs: 60_000,
        webhookTestRateLimit: 10,
        webhookTestRateWindowMs: 60_000,
        webhookBackoffBaseMs: 30_000,
        webhookBackoffCapMs: 21_600_000,
        webhookRetryWindowMs: 259_200_000,
        webhookDisableAfterMs: 432_000_000,
        webhookLeaseMs: 60_000,
        retentionMs: 90 * 86_400_000,
        eraseDeletedAfterMs: null,
        idempotencyTtlMs: 86_400_000,
        logLevel: "info",
        publicUrl: null,
        linkBaseUrl: null,
        trustedProxies: [],
        console: true,
        metrics: true,
        metricsToken: null,
        metricsPort: null,
        keywords: {},
        startupTimeoutMs: 30_000,
        storageTimeoutMs: 2000,
      }),
    );
  });

  it("reads every variable when it is set", () => {
    const result = read({
      TIDINGS_DATABASE_URL: "postgres://app@db.internal:5432/tidings",
      PORT: "0",
      HOST: "0.0.0.0",
      TIDINGS_SECRET_KEY: KEY,
      TIDINGS_DEV: "1",
      TIDINGS_PROVIDER: "sandbox",
      TIDINGS_PROVIDER_VIBER: "sandbox",
      TIDINGS_PROVIDER_SMS: "sandbox",
      TIDINGS_PROVIDER_TIMEOUT_MS: "2500",
      TIDINGS_SANDBOX_DELAY_MS: "50",
      TIDINGS_SEND_RATE_LIMIT: "5/2m",
      TIDINGS_WEBHOOK_TEST_RATE_LIMIT: "3/10s",
      TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "100",
      TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "1000",
      TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "5000",
      TIDINGS_WEBHOOK_DISABLE_AFTER_MS: "60000",
      TIDINGS_WEBHOOK_LEASE_MS: "25000",
      TIDINGS_RETENTION: "2m",
      TIDINGS_RETENTION_ERASE_DELETED_DAYS: "30",
      TIDINGS_IDEMPOTENCY_TTL: "1500ms",
      TIDINGS_LOG_LEVEL: "debug",
      TIDINGS_PUBLIC_URL: "https://tidings.example.com",
      TIDINGS_LINK_BASE_URL: "https://t.example.com/",
      TIDINGS_TRUSTED_PROXIES: "10.0.0.1, 192.168.0.0/16,::1",
      TIDINGS_CONSOLE: "0",
      TIDINGS_METRICS: "0",
      TIDINGS_METRICS_TOKEN: "scrape-token",
      TIDINGS_METRICS_PORT: "9464",
      TIDINGS_KEYWORDS: '{"opt_out":["ARRET"]}',
      TIDINGS_STARTUP_TIMEOUT_MS: "5000",
      TIDINGS_STORAGE_TIMEOUT_MS: "3000",
    });
    expect(result).toEqual(
      ok({
        database: { kind: "postgres", url: "postgres://app@db.internal:5432/tidings" },
        port: 0,
        host: "0.0.0.0",
        secretKey: KEY,
        dev: true,
        providers: {
          viber: "sandbox",
          sms: "sandbox",
          timeoutMs: 2500,
          twilio: null,
          infobip: null,
          vonage: null,
          telnyx: null,
          failover: { viber: ["sandbox"], sms: ["sandbox"], onTimeout: false, senders: {} },
        },
        sandboxDelayMs: 50,
        sendRateLimit: 5,
        sendRateWindowMs: 120_000,
        webhookTestRateLimit: 3,
        webhookTestRateWindowMs: 10_000,
        webhookBackoffBaseMs: 100,
        webhookBackoffCapMs: 1000,
        webhookRetryWindowMs: 5000,
        webhookDisableAfterMs: 60_000,
        webhookLeaseMs: 25_000,
        retentionMs: 120_000,
        eraseDeletedAfterMs: 30 * 86_400_000,
        idempotencyTtlMs: 1500,
        logLevel: "debug",
        publicUrl: "https://tidings.example.com",
        linkBaseUrl: "https://t.example.com",
        trustedProxies: ["10.0.0.1", "192.168.0.0/16", "::1"],
        console: false,
        metrics: false,
        metricsToken: "scrape-token",
        metricsPort: 9464,
        keywords: { opt_out: ["ARRET"] },
        startupTimeoutMs: 5000,
        storageTimeoutMs: 3000,
      }),
    );
  });

  it.each([
    ["TIDINGS_DATABASE_URL", "mysql://x"],
    ["TIDINGS_DATABASE_URL", "sqlite:"],
    ["TIDINGS_DATABASE_URL", "sqlite:no/such/dir/t.db"],
    ["PORT", "70000"],
    ["HOST", "not a host"],
    ["HOST", "http://example.com"],
    ["TIDINGS_SECRET_KEY", "short"],
    ["TIDINGS_SECRET_KEY", "k".repeat(44)],
    ["PORT", "eighty"],
    ["TIDINGS_DEV", "maybe"],
    ["TIDINGS_METRICS", "maybe"],
    ["TIDINGS_METRICS_PORT", "70000"],
    ["TIDINGS_METRICS_PORT", "metrics"],
    ["TIDINGS_PROVIDER", "carrier-pigeon"],
    ["TIDINGS_PROVIDER_SMS", "carrier-pigeon"],
    ["TIDINGS_PROVIDER_TIMEOUT_MS", "5"],
    ["TIDINGS_SANDBOX_DELAY_MS", "-1"],
    ["TIDINGS_SEND_RATE_LIMIT", "100"],
    ["TIDINGS_SEND_RATE_LIMIT", "0/60s"],
    ["TIDINGS_WEBHOOK_TEST_RATE_LIMIT", "10"],
    ["TIDINGS_WEBHOOK_TEST_RATE_LIMIT", "10/0s"],
    ["TIDINGS_WEBHOOK_BACKOFF_BASE_MS", "0"],
    ["TIDINGS_WEBHOOK_BACKOFF_CAP_MS", "1.5"],
    ["TIDINGS_WEBHOOK_RETRY_WINDOW_MS", "soon"],
    ["TIDINGS_WEBHOOK_DISABLE_AFTER_MS", "0"],
    // The lease must outlast the 15 s webhook timeout plus the engine's 5 s margin.
    ["TIDINGS_WEBHOOK_LEASE_MS", "20000"],
    ["TIDINGS_LOG_LEVEL", "verbose"],
    ["TIDINGS_RETENTION", "90"],
    ["TIDINGS_RETENTION", "3 months"],
    ["TIDINGS_RETENTION", "0d"],
    ["TIDINGS_RETENTION", "99999999d"],
    ["TIDINGS_RETENTION_ERASE_DELETED_DAYS", "30d"],
    ["TIDINGS_RETENTION_ERASE_DELETED_DAYS", "-1"],
    ["TIDINGS_IDEMPOTENCY_TTL", "1.5h"],
    ["TIDINGS_IDEMPOTENCY_TTL", "500ms"],
    ["TIDINGS_STORAGE_TIMEOUT_MS", "50"],
    ["TIDINGS_STORAGE_TIMEOUT_MS", "2s"],
  ])("refuses a bad %s (%j) with a message naming the variable", (name, value) => {
    const errors = errorsOf({ [name]: value });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(name);
  });

  it("reports every bad variable at once, not just the first", () => {
    const errors = errorsOf({ PORT: "x", TIDINGS_LOG_LEVEL: "loud", TIDINGS_DEV: "2" });
    expect(errors.map((e) => e.split(" ")[0])).toEqual(
      expect.arrayContaining(["PORT", "TIDINGS_LOG_LEVEL", "TIDINGS_DEV"]),
    );
  });

  it("reports a bad key, host and database directory together with the others", () => {
    const errors = errorsOf({
      TIDINGS_DATABASE_URL: "sqlite:/no/such/dir/t.db",
      HOST: "not_a_host",
      TIDINGS_SECRET_KEY: "short",
      PORT: "x",
      TIDINGS_LOG_LEVEL: "loud",
    });
    expect(errors.map((e) => e.split(" ")[0]).sort()).toEqual([
      "HOST",
      "PORT",
      "TIDINGS_DATABASE_URL",
      "TIDINGS_LOG_LEVEL",
      "TIDINGS_SECRET_KEY",
    ]);
    expect(errors.join("\n")).not.toContain("short");
  });

  it("requires TIDINGS_SECRET_KEY on PostgreSQL, where every process must share it", () => {
    const errors = errorsOf({ TIDINGS_DATABASE_URL: "postgres://app@db.internal/tidings" });
    expect(errors).toEqual([expect.stringMatching(/^TIDINGS_SECRET_KEY must be set/)]);
  });

  it("refuses a backoff cap below the base", () => {
    const errors = errorsOf({
      TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "5000",
      TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "1000",
    });
    expect(errors[0]).toContain("TIDINGS_WEBHOOK_BACKOFF_CAP_MS");
  });

  it("refuses a link base that is no http(s) URL, and proxies that are no address or range", () => {
    expect(errorsOf({ TIDINGS_LINK_BASE_URL: "ftp://t.example" })[0]).toContain(
      "TIDINGS_LINK_BASE_URL",
    );
    for (const bad of ["10.0.0.1/33", "proxy.internal", "10.0.0.0/8/1", "::1/129"]) {
      expect(errorsOf({ TIDINGS_TRUSTED_PROXIES: `10.0.0.1,${bad}` })[0]).toContain(
        "TIDINGS_TRUSTED_PROXIES",
      );
    }
  });

  it("reads TIDINGS_PUBLIC_URL without its trailing slash, and refuses what is not http(s)", () => {
    const given = read({ TIDINGS_PUBLIC_URL: "https://tidings.example.com/" });
    expect(given.isOk() && given.value.publicUrl).toBe("https://tidings.example.com");
    const unset = read({});
    expect(unset.isOk() && unset.value.publicUrl).toBeNull();
    for (const bad of ["ftp://x.example", "not a url", "https://x.example/?a=1"]) {
      expect(errorsOf({ TIDINGS_PUBLIC_URL: bad })[0]).toContain("TIDINGS_PUBLIC_URL");
    }
  });

  it("mounts the console unless TIDINGS_CONSOLE is 0", () => {
    const on = read({});
    expect(on.isOk() && on.value.console).toBe(true);
    const off = read({ TIDINGS_CONSOLE: "0" });
    expect(off.isOk() && off.value.console).toBe(false);
    expect(errorsOf({ TIDINGS_CONSOLE: "maybe" })[0]).toContain("TIDINGS_CONSOLE");
  });

  it("takes TIDINGS_SQLITE_SYNCHRONOUS normal or full, and refuses anything else", () => {
    const full = read({ TIDINGS_SQLITE_SYNCHRONOUS: "full" });
    expect(full.isOk() && full.value.database).toMatchObject({
      kind: "sqlite",
      synchronous: "full",
    });
    expect(errorsOf({ TIDINGS_SQLITE_SYNCHRONOUS: "off" })).toEqual([
      'TIDINGS_SQLITE_SYNCHRONOUS must be normal or full, not "off".',
    ]);
  });

  it("treats an empty variable as unset", () => {
    const result = read({ PORT: "", TIDINGS_LOG_LEVEL: "  " });
    expect(result.isOk() && result.value.port).toBe(3000);
    expect(result.isOk() && result.value.logLevel).toBe("info");
  });

  it("lists a default for every variable it reads", () => {
    expect(Object.keys(CONFIG_DEFAULTS)).toEqual([
      "TIDINGS_DATABASE_URL",
      "TIDINGS_SQLITE_SYNCHRONOUS",
      "PORT",
      "HOST",
      "TIDINGS_SECRET_KEY",
      "TIDINGS_DEV",
      "TIDINGS_PROVIDER",
      "TIDINGS_PROVIDER_VIBER",
      "TIDINGS_PROVIDER_SMS",
      "TIDINGS_PROVIDER_TIMEOUT_MS",
      "TIDINGS_FAILOVER_ON_TIMEOUT",
      "TIDINGS_<PROVIDER>_SENDERS",
      "TIDINGS_SANDBOX_DELAY_MS",
      "TIDINGS_SEND_RATE_LIMIT",
      "TIDINGS_WEBHOOK_TEST_RATE_LIMIT",
      "TIDINGS_WEBHOOK_BACKOFF_BASE_MS",
      "TIDINGS_WEBHOOK_BACKOFF_CAP_MS",
      "TIDINGS_WEBHOOK_RETRY_WINDOW_MS",
      "TIDINGS_WEBHOOK_DISABLE_AFTER_MS",
      "TIDINGS_WEBHOOK_LEASE_MS",
      "TIDINGS_STARTUP_TIMEOUT_MS",
      "TIDINGS_STORAGE_TIMEOUT_MS",
      "TIDINGS_RETENTION",
      "TIDINGS_RETENTION_ERASE_DELETED_DAYS",
      "TIDINGS_IDEMPOTENCY_TTL",
      "TIDINGS_LOG_LEVEL",
      "TIDINGS_KEYWORDS",
      "TIDINGS_PUBLIC_URL",
      "TIDINGS_LINK_BASE_URL",
      "TIDINGS_TRUSTED_PROXIES",
      "TIDINGS_CONSOLE",
      "TIDINGS_METRICS",
      "TIDINGS_METRICS_TOKEN",
      "TIDINGS_METRICS_PORT",
    ]);
  });
});

describe("checkHost", () => {
  it.each([
    "127.0.0.1",
    "0.0.0.0",
    "::",
    "::1",
    "fe80::1%eth0",
    "localhost",
    "not-a-host",
    "api.example.com",
    "api.example.com.",
    "xn--bcher-kva.example",
    "a".repeat(63),
  ])("accepts %j", (host) => {
    expect(checkHost(host).isOk()).toBe(true);
  });

  it.each([
    "",
    "not a host",
    "http://example.com",
    "example.com:3000",
    "under_score",
    "-leading.example",
    "trailing-.example",
    "a..b",
    "a".repeat(64),
    `${"a.".repeat(127)}ab`,
    "1.2.3",
    "999.1.1.1",
    "[::1]",
  ])("refuses %j, saying what it expects", (host) => {
    expect(checkHost(host)._unsafeUnwrapErr()).toMatch(/^must be an IP address .* or a host name/);
  });
});

describe("parseDatabaseUrl", () => {
  it.each([
    [
      "resolves a relative SQLite path against the working directory",
      "sqlite:data/t.db",
      "/srv/data/t.db",
    ],
    ["keeps an absolute SQLite path", "sqlite:/var/t.db", "/var/t.db"],
    ["keeps an absolute SQLite path in the sqlite:// form", "sqlite:///var/t.db", "/var/t.db"],
    ["accepts an in-memory SQLite database", "sqlite::memory:", ":memory:"],
  ])("%s: %j", (_, url, path) => {
    expect(parseDatabaseUrl(url, "/srv")._unsafeUnwrap()).toEqual({ kind: "sqlite", path });
  });

  it.each(["postgres://u@h/d", "postgresql://u@h/d"])("selects PostgreSQL for %j", (url) => {
    expect(parseDatabaseUrl(url, "/srv")._unsafeUnwrap()).toEqual({ kind: "postgres", url });
  });

  it("takes prepared_statements=true or false on a PostgreSQL URL, and nothing else", () => {
    for (const value of ["true", "false"]) {
      expect(parseDatabaseUrl(`postgres://u@h/d?prepared_statements=${value}`, "/srv").isOk()).toBe(
        true,
      );
    }
    expect(
      parseDatabaseUrl("postgres://u@h/d?prepared_statements=off", "/srv")._unsafeUnwrapErr(),
    ).toBe("has prepared_statements=off; it takes true (the default) or false.");
  });

  it("takes key_memory_ms as a whole number of milliseconds on a PostgreSQL URL", () => {
    for (const value of ["0", "5000", "60000"]) {
      expect(parseDatabaseUrl(`postgres://u@h/d?key_memory_ms=${value}`, "/srv").isOk()).toBe(true);
    }
    for (const value of ["", "-1", "1.5", "5s", "1e3"]) {
      expect(
        parseDatabaseUrl(`postgres://u@h/d?key_memory_ms=${value}`, "/srv")._unsafeUnwrapErr(),
      ).toBe(
        `has key_memory_ms=${value}; it takes a whole number of milliseconds (5000 by default, 0 for none).`,
      );
    }
  });

  it("explains what it expects for anything else", () => {
    expect(parseDatabaseUrl("tidings.db", "/srv")._unsafeUnwrapErr()).toMatch(
      /sqlite:PATH or postgres/,
    );
  });
});
