import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";

// What a newcomer meets first, through the real server: the page at `/`, a refusal that says
// how to allow a local webhook receiver, and log lines of one style.

let served: ServedTidings | null = null;
afterEach(async () => {
  await served?.stop();
  served = null;
});

describe("the server's address opened in a browser", () => {
  it("answers a small page pointing at the console, the OpenAPI document and the docs", async () => {
    served = await serveTidings();
    const page = await fetch(`${served.url}/`, { headers: { accept: "text/html,*/*;q=0.8" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe("default-src 'none'");
    const html = await page.text();
    for (const href of ["/console", "/openapi.json", "/healthz", "https://github.com/"]) {
      expect(html).toContain(`href="${href}`);
    }
    // Each link leads somewhere.
    // The console asks a visitor without a session to sign in (the page says how).
    const consolePage = await fetch(`${served.url}/console`, { redirect: "manual" });
    expect(consolePage.status).not.toBe(404);
    expect(consolePage.headers.get("content-type")).toContain("text/html");
    expect(html).toContain("tidings console link");
    expect((await fetch(`${served.url}/openapi.json`)).status).toBe(200);

    const json = await fetch(`${served.url}/?from=probe`);
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({
      name: "tidings",
      console: "/console",
      openapi: "/openapi.json",
      docs: expect.stringMatching(/^https:\/\//),
    });
    const head = await fetch(`${served.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    // The icon browsers ask for: the console's.
    const favicon = await fetch(`${served.url}/favicon.ico`, { redirect: "manual" });
    expect(favicon.status).toBe(301);
    expect(favicon.headers.get("location")).toBe("/console/assets/icon.svg");
    const icon = await fetch(`${served.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    // Only GET and HEAD: anything else at / is the API's usual answer.
    expect((await fetch(`${served.url}/`, { method: "POST" })).status).toBeGreaterThanOrEqual(400);
  });

  it("leaves the console out when it is turned off", async () => {
    served = await serveTidings({ TIDINGS_CONSOLE: "0" });
    const html = await (await fetch(`${served.url}/`, { headers: { accept: "text/html" } })).text();
    expect(html).not.toContain('href="/console"');
    expect(html).toContain("TIDINGS_CONSOLE=0");
    expect((await (await fetch(`${served.url}/`)).json()).console).toBeNull();
    expect((await fetch(`${served.url}/favicon.ico`)).status).toBe(204);
  });
});

it("a webhook URL refused outside development mode says that TIDINGS_DEV=1 allows it", async () => {
  served = await serveTidings({ TIDINGS_DEV: "0" });
  const send = (webhook_url: string) =>
    served?.call("POST", "/v1/messages/send", {
      campaign_id: served.campaignId,
      recipient: { type: "phone_number", value: "+14155550101" },
      params: { pin: "123456" },
      webhook_url,
    });
  for (const url of ["http://127.0.0.1:4000/webhooks", "https://127.0.0.1:4000/webhooks"]) {
    const answer = await send(url);
    expect(answer?.status, url).toBe(400);
    const problem = (await answer?.json()) as { errors: Array<{ path: string; message: string }> };
    expect(problem.errors).toEqual([
      {
        path: "webhook_url",
        message: expect.stringContaining("allowed when the server runs with TIDINGS_DEV=1"),
      },
    ]);
  }
});

it("logs every request with a request id and every field in snake_case, webhook attempts too", async () => {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    served = await serveTidings();
    const { port } = receiver.address() as AddressInfo;
    const sent = await served.call("POST", "/v1/messages/send", {
      campaign_id: served.campaignId,
      recipient: { type: "phone_number", value: "+14155550101" },
      params: { pin: "123456" },
      webhook_url: `http://127.0.0.1:${port}/hooks`,
    });
    expect(sent.status).toBe(200);
    const attempt = await served.waitForLog("webhook attempt");
    expect(attempt).toMatchObject({
      delivery_id: expect.any(String),
      status_code: 204,
      duration_ms: expect.any(Number),
      outcome: "delivered",
    });

    // The console's pages and `/` carry a request id too, in the answer and in the log line.
    const page = await fetch(`${served.url}/console`, {
      headers: { "x-request-id": "trace-me-1" },
    });
    expect(page.headers.get("x-request-id")).toBe("trace-me-1");
    const front = await fetch(`${served.url}/`);
    const frontId = front.headers.get("x-request-id");
    expect(frontId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = await eventually("the front page's request line", async () =>
      served?.logs().find((line) => line.msg === "request" && line.path === "/"),
    );
    expect(logged.request_id).toBe(frontId);
    const requests = served.logs().filter((line) => line.msg === "request");
    expect(requests.find((line) => line.path === "/console")?.request_id).toBe("trace-me-1");
    expect(requests.filter((line) => line.request_id === null)).toEqual([]);

    for (const line of served.logs()) {
      for (const key of Object.keys(line))
        expect(key, JSON.stringify(line)).toMatch(/^[a-z0-9_]+$/);
    }
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
