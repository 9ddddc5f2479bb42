import { describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { memoryStorage } from "../testing/memory/index.js";
import { createApiKey } from "./api-keys.js";
import { authenticate } from "./authenticate.js";
import { createOrganization } from "./organizations.js";

async function setup() {
  const clock = manualClock(Date.UTC(2026, 0, 15, 9));
  const secretBox = { seal: (text: string) => text, open: (text: string) => text };
  const deps = { storage: memoryStorage(), clock, ids: createIds(clock), secretBox };
  const org = (await createOrganization(deps, { name: "Acme" }))._unsafeUnwrap();
  const key = (
    await createApiKey(deps, { organization_id: org.id, scopes: ["profiles:read"] })
  )._unsafeUnwrap();
  return { deps, org, key };
}

describe("authenticate", () => {
  it("accepts the Bearer scheme in any case (RFC 9110: auth schemes are case-insensitive)", async () => {
    const { deps, org, key } = await setup();
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const principal = await authenticate(deps, `${scheme} ${key.token}`);
      expect(principal._unsafeUnwrap(), scheme).toEqual({
        organizationId: org.id,
        apiKeyId: key.key_id,
        scopes: ["profiles:read"],
      });
    }
    expect((await authenticate(deps, `Bearer   ${key.token}`)).isOk()).toBe(true);
  });

  it("refuses other schemes, a missing token and a case-changed secret alike", async () => {
    const { deps, key } = await setup();
    const [keyId, secret = ""] = key.token.split(":");
    const refused = [
      undefined,
      "",
      "Bearer",
      `Basic ${key.token}`,
      `Bearer${key.token}`,
      `Bearers ${key.token}`,
      `Bearer ${keyId}:${secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase()}`,
    ];
    for (const authorization of refused) {
      const result = await authenticate(deps, authorization);
      expect(result._unsafeUnwrapErr(), String(authorization)).toMatchObject({
        type: "unauthorized",
        code: "unauthorized",
      });
    }
  });
});
