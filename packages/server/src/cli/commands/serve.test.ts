import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startInProcess } from "../../testing/in-process.js";
import { createSender, sendOtp } from "../../testing/process-cluster.js";
import { cliOrganization, runCli, tempWorkspace } from "../../testing/run-cli.js";

let workspace: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(() => workspace.cleanup());

describe("serve", () => {
  it("listens on the port it was given (0 picks one), logs JSON lines, and exits 0 on a signal", async () => {
    const server = startInProcess(workspace.dir, ["serve", "--port", "0"], {
      ...workspace.env,
      TIDINGS_LOG_LEVEL: "info",
    });
    const listening = await server.waitForLog("listening");
    expect(listening).toMatchObject({ level: "info", host: "127.0.0.1", port: expect.any(Number) });
    const response = await fetch(`http://127.0.0.1:${listening.port}/healthz`, {
      headers: { "x-request-id": "req-123" },
    });
    expect(response.status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(server.logs()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: "request",
          request_id: "req-123",
          method: "GET",
          path: "/healthz",
          status: 200,
          duration_ms: expect.any(Number),
        }),
        expect.objectContaining({ msg: "shutting down", signal: "SIGTERM" }),
        expect.objectContaining({ msg: "stopped" }),
      ]),
    );
  });

  it("exits 2 for a port that is not one", async () => {
    const run = await runCli(["serve", "--port", "http"], workspace.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--port");
  });

  it("exits 2 for a --host that is not a host, and 1 naming HOST for a bad HOST", async () => {
    const flag = await runCli(["serve", "--host", "http://x"], workspace.env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--host must be an IP address");
    const variable = await runCli(["serve"], { ...workspace.env, HOST: "not a host" });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toContain(
      'HOST must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name (such as localhost), not "not a host".',
    );
  });

  it("names HOST when a well-formed host name does not resolve", async () => {
    // `.invalid` never resolves (RFC 6761).
    const run = await runCli(["serve", "--port", "0"], {
      ...workspace.env,
      HOST: "not-a-host.invalid",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: HOST "not-a-host.invalid" does not resolve to an address');
  });

  it("names --port when the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await runCli(["serve", "--port", String(port)], workspace.env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`error: --port ${port} is already in use on 127.0.0.1`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("finishes the webhook attempt in flight before it exits", async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const attemptArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const receiver: Server = createServer((req, res) => {
      req.resume();
      arrived();
      // Answers only once the server was asked to stop.
      release = () => res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const env = {
      ...workspace.env,
      TIDINGS_DEV: "1",
      TIDINGS_LOG_LEVEL: "info",
      TIDINGS_SANDBOX_DELAY_MS: "60000",
    };
    try {
      const sender = await createSender(env, "messages:send");

      const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
      const { port } = await server.waitForLog("listening");
      const sent = await sendOtp(`http://127.0.0.1:${port}`, sender, { webhookUrl });
      expect(sent.status).toBe(200);
      await attemptArrived;
      const exit = server.stop();
      await server.waitForLog("shutting down");
      release();
      expect(await exit).toBe(0);
      const lines = server.logs();
      const attempt = lines.findIndex(
        (l) => l.msg === "webhook attempt" && l.outcome === "delivered",
      );
      expect(attempt).toBeGreaterThan(-1);
      expect(attempt).toBeLessThan(lines.findIndex((l) => l.msg === "stopped"));
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it("mounts the console at /console, with a Secure cookie under an https TIDINGS_PUBLIC_URL, and not at all with TIDINGS_CONSOLE=0", async () => {
    const org = await cliOrganization(workspace.env);
    const env = {
      ...workspace.env,
      TIDINGS_LOG_LEVEL: "info",
      TIDINGS_PUBLIC_URL: "https://tidings.example.com",
    };
    const on = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
    const { port } = await on.waitForLog("listening");
    const link = await runCli(["console", "link", "--org", org, "--json"], env);
    const token = new URL(link.json<{ url: string }>().url).searchParams.get("token") ?? "";
    const signedIn = await fetch(`http://127.0.0.1:${port}/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${token}`,
      redirect: "manual",
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("set-cookie")).toMatch(/; Secure/);
    expect(await on.stop()).toBe(0);

    const off = startInProcess(workspace.dir, ["serve", "--port", "0"], {
      ...env,
      TIDINGS_CONSOLE: "0",
    });
    const listening = await off.waitForLog("listening");
    expect(listening.console).toBeNull();
    const absent = await fetch(`http://127.0.0.1:${listening.port}/console`);
    expect(absent.status).toBe(404);
    expect(absent.headers.get("content-type")).toContain("application/problem+json");
    expect(await off.stop()).toBe(0);
  });

  it("warns when a real provider's callbacks would go to this machine (TIDINGS_DEV=1, no TIDINGS_PUBLIC_URL)", async () => {
    const twilio = {
      ...workspace.env,
      TIDINGS_LOG_LEVEL: "info",
      TIDINGS_DEV: "1",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_ACCOUNT_SID: `AC${"3".repeat(32)}`,
      TIDINGS_TWILIO_AUTH_TOKEN: "token",
    };
    const warned = async (env: Record<string, string>) => {
      const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
      const listening = await server.waitForLog("listening");
      expect(await server.stop()).toBe(0);
      const warning = server
        .logs()
        .find((l) => l.msg === "provider callbacks cannot reach this server");
      return { listening, warning };
    };

    const local = await warned(twilio);
    expect(local.warning).toMatchObject({
      level: "warn",
      providers: ["twilio"],
      callback_urls: [`${String(local.listening.url)}/providers/twilio`],
      hint: expect.stringContaining("Set TIDINGS_PUBLIC_URL"),
    });
    const loopback = await warned({ ...twilio, TIDINGS_PUBLIC_URL: "http://localhost:3000" });
    expect(loopback.warning).toMatchObject({
      callback_urls: ["http://localhost:3000/providers/twilio"],
    });
    // Nothing to warn of: a public address, or the sandbox alone.
    expect(
      (await warned({ ...twilio, TIDINGS_PUBLIC_URL: "https://tidings.example.com" })).warning,
    ).toBeUndefined();
    expect(
      (await warned({ ...workspace.env, TIDINGS_LOG_LEVEL: "info", TIDINGS_DEV: "1" })).warning,
    ).toBeUndefined();
  });
});

describe("worker", () => {
  it("runs the engine and the sweep without HTTP, and exits 0 on a signal", async () => {
    const worker = startInProcess(workspace.dir, ["worker"], {
      ...workspace.env,
      TIDINGS_LOG_LEVEL: "info",
    });
    expect(await worker.waitForLog("worker started")).toMatchObject({ database: "sqlite" });
    expect(await worker.stop("SIGINT")).toBe(0);
    expect(worker.logs().map((l) => l.msg)).toContain("stopped");
  });
});
