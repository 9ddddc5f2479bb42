import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { within } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The example as its README runs it, through Node with the tsx loader rather than
 * `pnpm exec tsx`, so the stop signal reaches the example's own process and its exit code is
 * the example's (pnpm and the tsx CLI sit in between otherwise).
 */
function startExample(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/embed-node-http/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      // The last line it prints on start-up is the curl command that creates a profile.
      if (stdout.includes("/messaging/v1/profiles")) resolve(stdout);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready: ${stderr}`)));
  });
  return { child, ready, exited };
}

let running: ReturnType<typeof startExample> | undefined;
afterEach(() => {
  if (running?.child.exitCode === null) running.child.kill("SIGKILL");
});

describe("examples/embed-node-http/main.ts (smoke)", () => {
  it("serves the shop and Tidings under /messaging, then stops cleanly on SIGTERM", async () => {
    running = startExample({ PORT: "0" });
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
