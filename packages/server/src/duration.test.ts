import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads a whole number and a unit", () => {
    expect(parseDuration("1500ms")).toBe(1500);
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("2m")).toBe(120_000);
    expect(parseDuration("24h")).toBe(86_400_000);
    expect(parseDuration("90d")).toBe(7_776_000_000);
    expect(parseDuration("0s")).toBe(0);
  });

  it("refuses anything else", () => {
    for (const text of [
      "",
      "90",
      "d",
      "1.5h",
      "-1d",
      "1 d",
      "1D",
      "1w",
      "1h30m",
      "999999999999d",
    ]) {
      expect(parseDuration(text)).toBeNull();
    }
  });
});

describe("formatDuration", () => {
  it("writes the largest whole unit", () => {
    expect(formatDuration(7_776_000_000)).toBe("90d");
    expect(formatDuration(259_200_000)).toBe("3d");
    expect(formatDuration(120_000)).toBe("2m");
    expect(formatDuration(90_000)).toBe("90s");
    expect(formatDuration(1500)).toBe("1500ms");
  });
});
