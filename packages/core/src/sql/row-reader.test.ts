import { describe, expect, it } from "vitest";
import type { SqlCodec } from "./codec.js";
import { CorruptRowError } from "./corrupt-row-error.js";
import { sqlRecords } from "./records.js";
import { rowReader } from "./row-reader.js";

// A strict codec of a made-up database that stores flags as "t" / "f" and answers integers as
// numbers: the reader must take every kind from the codec, none from either real database.
const codec: SqlCodec = {
  readFlag: (value) => (value === "t" ? true : value === "f" ? false : undefined),
  readInteger: (value) => (Number.isSafeInteger(value) ? (value as number) : undefined),
  writeFlag: (value) => (value ? "t" : "f"),
  placeholder: (position) => `:${position}`,
  selectJson: (column, alias) => `${alias}${column}`,
};

const failure = (read: () => unknown): CorruptRowError => {
  try {
    read();
  } catch (error) {
    if (error instanceof CorruptRowError) return error;
    throw error;
  }
  throw new Error("expected a CorruptRowError");
};

describe("rowReader", () => {
  const reader = (row: unknown) => rowReader("things", row, codec);

  it("reads well-typed values, and null where the column allows it", () => {
    const r = reader({ a: "x", b: null, c: "t", d: 7, e: '{"k":"v"}', f: null });
    expect(r.text("a")).toBe("x");
    expect(r.textOrNull("b")).toBeNull();
    expect(r.flag("c")).toBe(true);
    expect(r.flagOrNull("b")).toBeNull();
    expect(r.integer("d")).toBe(7);
    expect(r.oneOf("a", ["x", "y"])).toBe("x");
    const object = {
      expected: "an object",
      is: (v: unknown): v is object => typeof v === "object",
    };
    expect(r.json("e", object)).toEqual({ k: "v" });
    expect(r.jsonOrNull("f", object)).toBeNull();
  });

  it("names table, column, value and what was expected", () => {
    const error = failure(() => reader({ status: "bogus" }).oneOf("status", ["a", "b"]));
    expect(error).toMatchObject({ table: "things", column: "status", value: "bogus" });
    expect(error.message).toBe(
      'corrupt row in things: column status holds "bogus", expected one of a, b',
    );
  });

  it("refuses a value of the wrong kind for each reader", () => {
    const r = reader({
      n: null,
      two: 2,
      text: "true",
      one: "1",
      big: 2 ** 60,
      json: "{",
      float: 1.5,
    });
    expect(failure(() => r.text("n")).expected).toBe("text");
    expect(failure(() => r.flag("two")).expected).toBe("a boolean");
    expect(failure(() => r.flag("text")).expected).toBe("a boolean");
    expect(failure(() => r.integer("big")).expected).toBe("an integer");
    expect(failure(() => r.integer("float")).expected).toBe("an integer");
    const any = { expected: "anything", is: (_: unknown): _ is unknown => true };
    expect(failure(() => r.json("json", any)).expected).toBe("JSON: anything");
    expect(failure(() => r.json("one", { ...any, is: (v): v is never => v !== 1 })).value).toBe(
      "1",
    );
  });

  it("refuses a column that was not selected, and a row that is not an object", () => {
    expect(failure(() => reader({}).text("id")).message).toContain("was not selected");
    expect(failure(() => reader(undefined).text("id")).expected).toBe("a row object");
  });

  it("quotes at most the start of a long value", () => {
    const error = failure(() => reader({ t: "x".repeat(1000) }).integer("t"));
    expect(error.message.length).toBeLessThan(250);
    expect(error.message).toContain("…");
  });
});

describe("sqlRecords", () => {
  it("decodes a delivery's topic and refuses one no message event has", () => {
    const records = sqlRecords(codec);
    const row = {
      id: "d1",
      organization_id: "org_1",
      event_id: "e1",
      message_id: null,
      topic: "message.delivered",
      destination: '{"kind":"subscription","webhookId":"whk_1"}',
      destination_key: "whk_1",
      payload: "{}",
      status: "pending",
      attempts: 0,
      next_attempt_at: "2026-01-01T00:00:00.000Z",
      first_attempt_at: null,
      lease_owner: null,
      lease_expires_at: null,
      last_status_code: null,
      last_error: null,
      last_attempt_at: null,
      window_start_attempt: 0,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    };
    expect(records.delivery(row).topic).toBe("message.delivered");
    // The test event is posted at once and never stored, so a stored one is corrupt too.
    expect(() => records.delivery({ ...row, topic: "webhook.test" })).toThrow(
      /deliveries: column topic holds "webhook.test"/,
    );
  });
});
