import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { within } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("examples/custom-provider/main.ts (smoke)", () => {
  it("runs with the README's command: one code delivered through the signed webhook, one refused", async () => {
    // Exactly the command the README gives; it runs to the end on its own.
    const child = spawn("pnpm", ["exec", "tsx", "examples/custom-provider/main.ts"], {
      cwd: ROOT,
      env: process.env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const ended = new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    const code = await within(60_000, "the example to finish", ended).finally(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split("\n")).toEqual([
      "gateway: SMS to +14155550101: Your Demo code is 482913",
      "+14155550101: sent; events message.sent, message.delivered",
      "+14155550102: failed; events message.sent, message.failed",
    ]);
  });
});
