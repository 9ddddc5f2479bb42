import { describe, expect, it } from "vitest";
import { consoleWorld } from "./test-support/console-world.js";

describe("smoke", () => {
  it("renders every page", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    for (const path of ["/", "/campaigns", "/messages", "/webhooks", "/keys", "/profiles"]) {
      const page = await world.get(browser, path);
      expect(page.status, `${path}: ${page.body}`).toBe(200);
    }
    const created = await world.post(browser, "/campaigns", {
      name: "<b>x</b>",
      channel: "sms",
      category: "otp",
      sender: "Acme",
      template: "Code {{pin}}",
      ttl_seconds: "600",
      status: "inactive",
    });
    expect(created.status, created.body).toBe(303);
    const page = await world.get(browser, created.headers.location!.replace("/console", ""));
    console.log(page.body);
  });
});
