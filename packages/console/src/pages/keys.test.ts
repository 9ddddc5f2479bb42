import { describe, expect, it } from "vitest";
import { consoleWorld } from "../test-support/console-world.js";

describe("API key pages", () => {
  it("shows a key's secrets once, then lists it by name; revokes it and shows it revoked", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const refused = await world.post(browser, "/keys", { name: "No scopes" });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('id="scopes-error"');
    expect(refused.body).toContain('value="No scopes"');
    const created = await world.post(browser, "/keys", {
      name: "Checkout",
      scopes: ["messages:send", "profiles:read"],
    });
    expect(created.status).toBe(201);
    const token = /(key_[0-9a-z]+:[A-Za-z0-9_-]+)/.exec(created.body)?.[1] ?? "";
    expect(token).not.toBe("");
    expect(created.body).toContain("whsec_");
    const listed = await world.get(browser, "/keys");
    expect(listed.body).toContain("Checkout");
    expect(listed.body).not.toContain(token);
    expect(listed.body).not.toContain("whsec_");
    const keyId = token.split(":")[0] ?? "";
    expect((await world.post(browser, `/keys/${keyId}/revoke`)).status).toBe(303);
    const after = await world.get(browser, "/keys?notice=key_revoked");
    expect(after.body).toContain(">Revoked</span>");
    expect(after.body).not.toContain("Revoke Checkout");
  });
});
