import { StorageUnavailableError } from "@tidings/core";
import { anOrganization } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import type { PgPool } from "./pg-client.js";
import { pgFault } from "./pg-faults.js";
import { postgresStorage } from "./postgres-storage.js";

const coded = (code: string, message = "failed") => Object.assign(new Error(message), { code });

describe("pgFault", () => {
  it.each([
    ["ECONNREFUSED", "unreachable", "unchanged"],
    ["57P03", "unreachable", "unchanged"],
    ["53300", "unreachable", "unchanged"],
    ["ECONNRESET", "unreachable", "unknown"],
    ["57P01", "unreachable", "unknown"],
    ["08006", "unreachable", "unknown"],
    ["53100", "disk_full", "unknown"],
    ["25006", "read_only", "unknown"],
  ])("takes %s for %s, %s when the caller cannot tell", (code, reason, outcome) => {
    const fault = pgFault(coded(code), "unknown");
    expect(fault).toMatchObject({ reason, outcome });
  });

  it("keeps what the caller knows when the error does not say nothing was written", () => {
    expect(pgFault(coded("57P01"), "unchanged")?.outcome).toBe("unchanged");
    expect(pgFault(new Error("Connection terminated unexpectedly"), "unchanged")).toMatchObject({
      reason: "unreachable",
      outcome: "unchanged",
    });
  });

  it("leaves every other error alone: constraints, syntax, bugs", () => {
    expect(pgFault(coded("23505"), "unknown")).toBeNull();
    expect(pgFault(coded("42601"), "unknown")).toBeNull();
    expect(pgFault(new TypeError("x is undefined"), "unknown")).toBeNull();
    expect(pgFault("not an error", "unknown")).toBeNull();
  });

  it("only ever makes an outcome less certain", () => {
    const unchanged = new StorageUnavailableError("unreachable", "unchanged");
    expect(pgFault(unchanged, "unknown")?.outcome).toBe("unknown");
    const unknown = new StorageUnavailableError("unreachable", "unknown");
    expect(pgFault(unknown, "unchanged")?.outcome).toBe("unknown");
  });
});

describe("a pool's transaction cut off by a broken connection", () => {
  /** A pool whose one connection answers every statement, and breaks at `breakAt`. */
  const breakingPool = (breakAt: (text: string) => boolean): PgPool => ({
    query: async () => ({ rows: [] }),
    connect: async () => ({
      query: async (text: string) => {
        if (breakAt(text)) throw new Error("Connection terminated unexpectedly");
        return { rows: [] };
      },
      release: () => undefined,
    }),
  });

  it("says nothing was written when it broke before COMMIT", async () => {
    const storage = postgresStorage(breakingPool((text) => text.startsWith("INSERT")));
    const failure = await storage
      .transaction((tx) => tx.organizations.insert(anOrganization()))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "StorageUnavailableError", outcome: "unchanged" });
    expect(storage.health?.isAvailable()).toBe(false);
  });

  it("says it may have been written when it broke during COMMIT", async () => {
    const storage = postgresStorage(breakingPool((text) => text === "COMMIT"));
    const failure = await storage
      .transaction((tx) => tx.organizations.insert(anOrganization()))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "StorageUnavailableError", outcome: "unknown" });
  });

  it("destroys a connection whose statement timed out, sending it nothing more", async () => {
    const sent: string[] = [];
    const released: unknown[] = [];
    const timedOut: PgPool = {
      query: async () => ({ rows: [] }),
      connect: async () => ({
        query: async (text: string) => {
          sent.push(text);
          if (text.startsWith("INSERT")) throw new Error("Query read timeout");
          return { rows: [] };
        },
        release: (error?: Error | boolean) => {
          released.push(error);
        },
      }),
    };
    const storage = postgresStorage(timedOut);
    const failure = await storage
      .transaction((tx) => tx.organizations.insert(anOrganization()))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "StorageUnavailableError", outcome: "unchanged" });
    // No ROLLBACK: it would wait behind the statement still in flight. Destroying the
    // connection rolls the transaction back on the server.
    expect(sent).toEqual(["BEGIN", expect.stringMatching(/^INSERT/)]);
    expect(released).toEqual([true]);
  });

  it("says it may have been written when its COMMIT timed out", async () => {
    const storage = postgresStorage({
      query: async () => ({ rows: [] }),
      connect: async () => ({
        query: async (text: string) => {
          if (text === "COMMIT") throw new Error("Query read timeout");
          return { rows: [] };
        },
        release: () => undefined,
      }),
    });
    const failure = await storage
      .transaction((tx) => tx.organizations.insert(anOrganization()))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "StorageUnavailableError", outcome: "unknown" });
  });
});
