import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningShop, startShop } from "./shop.js";

let shop: RunningShop;
beforeEach(async () => {
  shop = await startShop({ port: 0, database: ":memory:" });
});
afterEach(() => shop.close());

describe("embedding Tidings in an existing node:http server", () => {
  it("serves the shop's own pages beside the API", async () => {
    expect(await (await fetch(`${shop.url}/`)).text()).toBe("Welcome to the shop.\n");
    expect((await fetch(`${shop.url}/about`)).status).toBe(404);
  });

  it("serves the Tidings API under /messaging", async () => {
    expect((await fetch(`${shop.url}/messaging/healthz`)).status).toBe(200);
    const auth = { authorization: `Bearer ${shop.token}`, "content-type": "application/json" };
    const created = await fetch(`${shop.url}/messaging/v1/profiles`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ phone_number: "+1 415 555 0101", first_name: "Ada" }),
    });
    expect(created.status).toBe(201);
    const profile = (await created.json()) as { public_id: string; phone_number: string };
    expect(profile.phone_number).toBe("+14155550101");
    const read = await fetch(`${shop.url}/messaging/v1/profiles/${profile.public_id}`, {
      headers: auth,
    });
    expect(read.status).toBe(200);
  });

  it("announces the mount path in its OpenAPI document", async () => {
    const document = (await (await fetch(`${shop.url}/messaging/openapi.json`)).json()) as {
      servers?: Array<{ url: string }>;
    };
    expect(JSON.stringify(document.servers)).toContain("/messaging");
  });
});
