import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED_TYPES_PATH, generatedTypes } from "../scripts/openapi-types.js";

describe("src/generated/api.ts", () => {
  it("is what `pnpm --filter @tidings/client gen` makes of the server's OpenAPI document now", async () => {
    const committed = readFileSync(GENERATED_TYPES_PATH, "utf8");
    // On a failure: the server's routes changed; run the command and commit the result.
    expect(committed === (await generatedTypes())).toBe(true);
  });
});
