import { within } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ExampleProcess, startExample } from "../testing/example-process.js";

const start = (name: string) =>
  startExample("embed-frameworks/main.ts", [name], { PORT: "0" }, ({ stdout }) =>
    stdout.includes("/messaging/v1/profiles") ? stdout : undefined,
  );

let running: ExampleProcess | undefined;
afterEach(() => {
  if (running?.child.exitCode === null) running.child.kill("SIGKILL");
});

describe("examples/embed-frameworks/main.ts (smoke)", () => {
  it.each(["express", "fastify", "hono"])(
    "%s: serves the shop and Tidings, then stops cleanly on SIGTERM",
    async (name) => {
      running = start(name);
      const printed = await within(60_000, "the example to start", running.ready);
      const url = /runs at (http:\/\/127\.0\.0\.1:\d+)\//.exec(printed)?.[1];
      const token = /Authorization: Bearer ([^']+)'/.exec(printed)?.[1];
      expect(url, printed).toBeDefined();
      expect(await (await fetch(`${url}/`)).text()).toBe("Welcome to the shop.\n");
      const created = await fetch(`${url}/messaging/v1/profiles`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ phone_number: "+14155550101" }),
      });
      expect(created.status).toBe(201);
      running.child.kill("SIGTERM");
      expect(await within(30_000, "the example to exit", running.exited)).toBe(0);
    },
  );

  it("refuses an unknown framework with a usage line and exit code 2", async () => {
    running = start("koa");
    await expect(running.ready).rejects.toThrow(/Usage: main.ts express\|fastify\|hono/);
    expect(await within(30_000, "the example to exit", running.exited)).toBe(2);
  });
});
