import { describe, expect, it } from "vitest";
import { splitOptions } from "./open-postgres-storage.js";

describe("Tidings' own parameters of a PostgreSQL URL", () => {
  it("takes schema and prepared_statements out before the URL reaches pg", () => {
    expect(
      splitOptions("postgres://u@db:5432/app?sslmode=require&schema=t1&prepared_statements=false"),
    ).toEqual({
      connectionString: "postgres://u@db:5432/app?sslmode=require",
      schema: "t1",
      prepared: false,
      // A pooler in transaction mode delivers no notices, so no key is kept in memory.
      keyMemoryMs: 0,
    });
  });

  it("prepares statements and uses the default schema unless told otherwise", () => {
    expect(splitOptions("postgres://u@db/app")).toEqual({
      connectionString: "postgres://u@db/app",
      schema: undefined,
      prepared: true,
      keyMemoryMs: 5_000,
    });
    expect(splitOptions("postgres://u@db/app?prepared_statements=true").prepared).toBe(true);
  });

  it("keeps API keys in memory as long as key_memory_ms says", () => {
    expect(splitOptions("postgres://u@db/app?key_memory_ms=60000")).toMatchObject({
      connectionString: "postgres://u@db/app",
      keyMemoryMs: 60_000,
    });
    expect(splitOptions("postgres://u@db/app?key_memory_ms=0").keyMemoryMs).toBe(0);
  });
});
