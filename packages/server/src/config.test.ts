import { describe, expect, it } from "vitest";
import { CONFIG_DEFAULTS, parseDatabaseUrl, readConfig } from "./config.js";

const read = (env: Record<string, string>) => readConfig(env, "/srv/app");

const errorsOf = (env: Record<string, string>): string[] => {
  const result = read(env);
  if (result.ok) throw new Error("expected the configuration to be refused");
  return result.errors;
};

describe("readConfig", () => {
  it("gives every variable its documented default when the environment is empty", () => {
    const result = read({});
    expect(result).toEqual({
      ok: true,
      config: {
        database: { kind: "sqlite", path: "/srv/app/tidings.db" },
        port: 3000,
        host: "127.0.0.1",
        secretKey: null,
        dev: false,
        provider: "sandbox",
        sandboxDelayMs: 1000,
        sendRateLimit: 100,
        sendRateWindowMs: 60_000,
        webhookBackoffBaseMs: 30_000,
        webhookBackoffCapMs: 21_600_000,
        webhookRetryWindowMs: 259_200_000,
        webhookLeaseMs: 60_000,
        logLevel: "info",
      },
    });
  });

  it("reads every variable when it is set", () => {
    const result = read({
      TIDINGS_DATABASE_URL: "postgres://app@db.internal:5432/tidings",
      PORT: "0",
      HOST: "0.0.0.0",
      TIDINGS_SECRET_KEY: "k".repeat(10),
      TIDINGS_DEV: "1",
      TIDINGS_PROVIDER: "sandbox",
      TIDINGS_SANDBOX_DELAY_MS: "50",
      TIDINGS_SEND_RATE_LIMIT: "5/2m",
      TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "100",
      TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "1000",
      TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "5000",
      TIDINGS_WEBHOOK_LEASE_MS: "25000",
      TIDINGS_LOG_LEVEL: "debug",
    });
    expect(result).toEqual({
      ok: true,
      config: {
        database: { kind: "postgres", url: "postgres://app@db.internal:5432/tidings" },
        port: 0,
        host: "0.0.0.0",
        secretKey: "k".repeat(10),
        dev: true,
        provider: "sandbox",
        sandboxDelayMs: 50,
        sendRateLimit: 5,
        sendRateWindowMs: 120_000,
        webhookBackoffBaseMs: 100,
        webhookBackoffCapMs: 1000,
        webhookRetryWindowMs: 5000,
        webhookLeaseMs: 25_000,
        logLevel: "debug",
      },
    });
  });

  it.each([
    ["TIDINGS_DATABASE_URL", "mysql://x"],
    ["TIDINGS_DATABASE_URL", "sqlite:"],
    ["PORT", "70000"],
    ["PORT", "eighty"],
    ["TIDINGS_DEV", "maybe"],
    ["TIDINGS_PROVIDER", "twilio"],
    ["TIDINGS_SANDBOX_DELAY_MS", "-1"],
    ["TIDINGS_SEND_RATE_LIMIT", "100"],
    ["TIDINGS_SEND_RATE_LIMIT", "0/60s"],
    ["TIDINGS_WEBHOOK_BACKOFF_BASE_MS", "0"],
    ["TIDINGS_WEBHOOK_BACKOFF_CAP_MS", "1.5"],
    ["TIDINGS_WEBHOOK_RETRY_WINDOW_MS", "soon"],
    // The lease must outlast the 15 s webhook timeout plus the engine's 5 s margin.
    ["TIDINGS_WEBHOOK_LEASE_MS", "20000"],
    ["TIDINGS_LOG_LEVEL", "verbose"],
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

  it("refuses a backoff cap below the base", () => {
    const errors = errorsOf({
      TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "5000",
      TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "1000",
    });
    expect(errors[0]).toContain("TIDINGS_WEBHOOK_BACKOFF_CAP_MS");
  });

  it("treats an empty variable as unset", () => {
    const result = read({ PORT: "", TIDINGS_LOG_LEVEL: "  " });
    expect(result.ok && result.config.port).toBe(3000);
    expect(result.ok && result.config.logLevel).toBe("info");
  });

  it("lists a default for every variable it reads", () => {
    expect(Object.keys(CONFIG_DEFAULTS)).toEqual([
      "TIDINGS_DATABASE_URL",
      "PORT",
      "HOST",
      "TIDINGS_SECRET_KEY",
      "TIDINGS_DEV",
      "TIDINGS_PROVIDER",
      "TIDINGS_SANDBOX_DELAY_MS",
      "TIDINGS_SEND_RATE_LIMIT",
      "TIDINGS_WEBHOOK_BACKOFF_BASE_MS",
      "TIDINGS_WEBHOOK_BACKOFF_CAP_MS",
      "TIDINGS_WEBHOOK_RETRY_WINDOW_MS",
      "TIDINGS_WEBHOOK_LEASE_MS",
      "TIDINGS_LOG_LEVEL",
    ]);
  });
});

describe("parseDatabaseUrl", () => {
  it("resolves a relative SQLite path against the working directory", () => {
    expect(parseDatabaseUrl("sqlite:data/t.db", "/srv")).toEqual({
      kind: "sqlite",
      path: "/srv/data/t.db",
    });
  });

  it("keeps an absolute SQLite path, with or without the sqlite:// form", () => {
    expect(parseDatabaseUrl("sqlite:/var/t.db", "/srv")).toEqual({
      kind: "sqlite",
      path: "/var/t.db",
    });
    expect(parseDatabaseUrl("sqlite:///var/t.db", "/srv")).toEqual({
      kind: "sqlite",
      path: "/var/t.db",
    });
  });

  it("accepts an in-memory SQLite database", () => {
    expect(parseDatabaseUrl("sqlite::memory:", "/srv")).toEqual({
      kind: "sqlite",
      path: ":memory:",
    });
  });

  it("selects PostgreSQL for postgres:// and postgresql:// URLs", () => {
    expect(parseDatabaseUrl("postgresql://u@h/d", "/srv")).toEqual({
      kind: "postgres",
      url: "postgresql://u@h/d",
    });
  });

  it("explains what it expects for anything else", () => {
    expect(parseDatabaseUrl("tidings.db", "/srv")).toMatch(/sqlite:PATH or postgres/);
  });
});
