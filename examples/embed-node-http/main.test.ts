import { within } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ExampleProcess, startExample } from "../testing/example-process.js";

/** The last line it prints on start-up is the curl command that creates a profile. */
const started = ({ stdout }: { stdout: string }) =>
  stdout.includes("/messaging/v1/profiles") ? stdout : undefined;

let running: ExampleProcess | undefined;
afterEach(() => {
  if (running?.child.exitCode === null) running.child.kill("SIGKILL");
});

describe("examples/embed-node-http/main.ts (smoke)", () => {
  it("serves the shop and Tidings under /messaging, then stops cleanly on SIGTERM", async () => {
    running = startExample("embed-node-http/main.ts", [], { PORT: "0" }, started);
    const printed = await within(60_000, "the example to start", running.ready);
    const url = /The shop runs at (http:\/\/127\.0\.0\.1:\d+)\//.exec(printed)?.[1];
    const token = /Authorization: Bearer ([^']+)'/.exec(printed)?.[1];
    expect(url, printed).toBeDefined();
    expect(token, printed).toBeDefined();

    expect(await (await fetch(`${url}/`)).text()).toBe("Welcome to the shop.\n");
    expect((await fetch(`${url}/messaging/healthz`)).status).toBe(200);
    // The README's curl, as fetch.
    const created = await fetch(`${url}/messaging/v1/profiles`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ phone_number: "+14155550101" }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ phone_number: "+14155550101" });

    running.child.kill("SIGTERM");
    expect(await within(30_000, "the example to exit", running.exited)).toBe(0);
  });
});
