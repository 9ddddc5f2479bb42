import { validateParams } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { codePoints, VALIDATOR_CASES } from "./validator-cases.js";

describe("validator benchmark cases", () => {
  it("measure the path they name: each case gets the verdict it expects", () => {
    for (const testCase of VALIDATOR_CASES) {
      const outcome = validateParams(testCase.campaign, testCase.params);
      const got = outcome.isOk() ? true : outcome.error.map((issue) => issue.rule)[0];
      expect({ name: testCase.name, got }).toEqual({ name: testCase.name, got: testCase.expect });
    }
  });

  it("the worst cases sit exactly at Viber's limit of 125 code points", () => {
    const worst = VALIDATOR_CASES.filter((c) => c.name.startsWith("125 "));
    expect(worst.length).toBeGreaterThanOrEqual(3);
    for (const testCase of worst) {
      expect(Object.values(testCase.params).map((v) => [...v].length)).toEqual([125]);
    }
  });

  it("codePoints cuts a pattern of astral characters by code point, not UTF-16 unit", () => {
    expect(codePoints("😀a", 3)).toBe("😀a😀");
  });
});
