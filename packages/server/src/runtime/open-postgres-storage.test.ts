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
    });
  });

  it("prepares statements and uses the default schema unless told otherwise", () => {
    expect(splitOptions("postgres://u@db/app")).toEqual({
      connectionString: "postgres://u@db/app",
      schema: undefined,
      prepared: true,
    });
    expect(splitOptions("postgres://u@db/app?prepared_statements=true").prepared).toBe(true);
  });
});
