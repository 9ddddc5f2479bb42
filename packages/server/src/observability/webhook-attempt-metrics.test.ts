import { describe, expect, it } from "vitest";
import { attemptOutcome } from "./webhook-attempt-metrics.js";

const URL = "https://hooks.example.com/in";

describe("attemptOutcome: the label of one webhook attempt", () => {
  it.each([
    [200, "2xx"],
    [204, "2xx"],
    [301, "3xx"],
    [404, "4xx"],
    [429, "4xx"],
    [500, "5xx"],
    [503, "5xx"],
    [600, "other_status"],
  ])("status %i is %s", (statusCode, outcome) => {
    expect(attemptOutcome({ statusCode, error: null, url: URL })).toBe(outcome);
  });

  it.each([
    ["timeout after 15000 ms", "timeout"],
    ["refused: 10.0.0.1 is a private address", "url_refused"],
    ["ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9", "connection_error"],
    ["the connection was closed before an answer arrived (other side closed)", "connection_error"],
  ])("no answer, %s: %s", (error, outcome) => {
    expect(attemptOutcome({ statusCode: null, error, url: URL })).toBe(outcome);
  });

  it("an attempt that never went out (subscription gone, secret unreadable) is not_sent", () => {
    expect(
      attemptOutcome({
        statusCode: null,
        error: "The webhook subscription was deleted.",
        url: null,
      }),
    ).toBe("not_sent");
  });
});
