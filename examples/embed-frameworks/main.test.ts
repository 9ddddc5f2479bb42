import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `main.ts NAME` through Node with the tsx loader, so SIGTERM reaches the example itself. */
function startExample(name: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "examples/embed-frameworks/main.ts", name],
    { cwd: ROOT, env: { ...process.env, PORT: "0" } },
  );
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
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

describe("examples/embed-frameworks/main.ts (smoke)", () => {
  it.each(["express", "fastify", "hono"])(
    "%s: serves the shop and Tidings, then stops cleanly on SIGTERM",
    async (name) => {
      running = startExample(name);
      const printed = await running.ready;
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
      expect(await running.exited).toBe(0);
    },
  );

  it("refuses an unknown framework with a usage line and exit code 2", async () => {
    running = startExample("koa");
    await expect(running.ready).rejects.toThrow(/Usage: main.ts express\|fastify\|hono/);
    expect(await running.exited).toBe(2);
  });
});
