import { describe, expect, it } from "vitest";
import { isScope, requireScope, SCOPES } from "./scopes.js";

describe("scopes", () => {
  it("isScope accepts exactly the scopes keys can hold", () => {
    for (const scope of SCOPES) expect(isScope(scope)).toBe(true);
    for (const text of ["", "profiles", "profiles:*", "PROFILES:READ", "admin"]) {
      expect(isScope(text), text).toBe(false);
    }
  });

  it("requireScope is ok with the scope and a 403 naming it without", () => {
    expect(requireScope(["profiles:read"], "profiles:read").isOk()).toBe(true);
    expect(requireScope(["profiles:read"], "messages:send")._unsafeUnwrapErr()).toEqual({
      type: "forbidden",
      code: "missing_scope",
      message: "The API key lacks the scope messages:send.",
    });
  });
});
