import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { cleanupsEach } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { eventually } from "../testing/eventually.js";
import { startInWorkspace } from "../testing/in-process.js";
import { tempWorkspace } from "../testing/run-cli.js";
import { type Scrape, scrape } from "../testing/scrape.js";
import { type ServedTidings, serveTidings } from "../testing/served-tidings.js";

// Issue 20: Prometheus metrics scraped from a running `tidings serve` (and `worker`) after real
// traffic, each series checked to move as it should. Every wait is bounded (`eventually`).

const cleanups = cleanupsEach();

async function served(env: Record<string, string> = {}): Promise<ServedTidings> {
  const tidings = await serveTidings(env);
  cleanups.push(() => tidings.stop());
  return tidings;
}

/**
 * A webhook receiver on loopback: `/fail` answers 500, `/hold` answers nothing until
 * `release()`, anything else 204.
 */
async function receiver() {
  const held: ServerResponse[] = [];
  let holding = true;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/fail")) res.writeHead(500).end("down");
      else if (req.url?.startsWith("/hold") && holding) held.push(res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}?token=receiver-secret`,
    held: () => held.length,
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
  };
}

const PHONE = "+14155550123";
const EMAIL = "ada@example.com";
const SEND = { method: "POST", route: "/v1/messages/send" };
const PROFILE = { method: "GET", route: "/v1/profiles/{public_id}" };

describe("GET /metrics on tidings serve", () => {
  it("moves every series with real traffic: requests, sends, events, webhook attempts and backlog, 429s and replays", async () => {
    const tidings = await served({
      TIDINGS_SEND_RATE_LIMIT: "5/60s",
      TIDINGS_SANDBOX_DELAY_MS: "50",
    });
    const hooks = await receiver();
    const metricsUrl = `${tidings.url}/metrics`;
    const before = await scrape(metricsUrl);
    const moved = (now: Scrape, name: string, labels: Record<string, string> = {}) =>
      now.value(name, labels) - before.value(name, labels);

    // Profiles: created, read, and one unknown id; an unknown route.
    const ids: string[] = [];
    for (const [phone, email] of [
      [PHONE, EMAIL],
      ["+14155550124", null],
    ]) {
      const created = await tidings.call("POST", "/v1/profiles", { phone_number: phone, email });
      expect(created.status).toBe(201);
      ids.push(((await created.json()) as { public_id: string }).public_id);
    }
    for (const id of ids)
      expect((await tidings.call("GET", `/v1/profiles/${id}`)).status).toBe(200);
    expect((await tidings.call("GET", "/v1/profiles/prf_unknown")).status).toBe(404);
    expect((await tidings.call("GET", "/v1/nowhere/123")).status).toBe(404);

    // Sends: one to a failing receiver (and its idempotent replay), one to a receiver that holds
    // its requests, one without a webhook, one the upstream refuses (the sandbox refuses
    // +15005550001); the sixth within the window is refused (limit 5).
    const send = (webhookUrl: string | null, key?: string, phone = PHONE) =>
      fetch(`${tidings.url}/v1/messages/send`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tidings.token}`,
          "content-type": "application/json",
          ...(key === undefined ? {} : { "idempotency-key": key }),
        },
        body: JSON.stringify({
          campaign_id: tidings.campaignId,
          recipient: { type: "phone_number", value: phone },
          params: { pin: "123456" },
          ...(webhookUrl === null ? {} : { webhook_url: webhookUrl }),
        }),
      });
    const messageIds: string[] = [];
    for (const [url, key] of [
      [hooks.url("/fail"), "send-1"],
      [hooks.url("/fail"), "send-1"],
      [hooks.url("/hold"), undefined],
      [null, undefined],
    ] as const) {
      const answer = await send(url, key);
      expect(answer.status).toBe(200);
      messageIds.push(((await answer.json()) as { message_id: string }).message_id);
    }
    const refusedByUpstream = await send(null, undefined, "+15005550001");
    expect(await refusedByUpstream.json()).toMatchObject({ status: "failed" });
    expect((await send(null)).status).toBe(429);

    // The held deliveries are pending and due: the backlog shows them, and how late they are.
    const whileHeld = await eventually("the held deliveries in the backlog, late", async () => {
      const now = await scrape(metricsUrl);
      return hooks.held() > 0 &&
        now.value("tidings_webhook_backlog") >= 1 &&
        now.value("tidings_webhook_oldest_due_seconds") > 0 &&
        moved(now, "tidings_webhook_attempts_total", { outcome: "5xx" }) >= 1 &&
        moved(now, "tidings_message_lifecycle_events_total", { topic: "message.delivered" }) >= 3
        ? now
        : undefined;
    });

    expect(moved(whileHeld, "tidings_http_requests_total", { ...SEND, status: "200" })).toBe(5);
    expect(moved(whileHeld, "tidings_http_requests_total", { ...SEND, status: "429" })).toBe(1);
    expect(moved(whileHeld, "tidings_http_request_duration_seconds_count", SEND)).toBe(6);
    expect(moved(whileHeld, "tidings_http_requests_total", { ...PROFILE, status: "200" })).toBe(2);
    expect(moved(whileHeld, "tidings_http_requests_total", { ...PROFILE, status: "404" })).toBe(1);
    expect(
      moved(whileHeld, "tidings_http_requests_total", {
        method: "POST",
        route: "/v1/profiles",
        status: "201",
      }),
    ).toBe(2);
    expect(
      moved(whileHeld, "tidings_http_requests_total", { route: "unmatched", status: "404" }),
    ).toBe(1);
    expect(moved(whileHeld, "tidings_rate_limited_total", { route: SEND.route })).toBe(1);
    expect(moved(whileHeld, "tidings_idempotent_replays_total", { route: SEND.route })).toBe(1);
    // Four messages (the replay sent nothing), each an OTP on the campaign's SMS channel.
    const otp = { category: "otp", channel: "sms" };
    expect(moved(whileHeld, "tidings_messages_total", { ...otp, outcome: "sent" })).toBe(3);
    expect(moved(whileHeld, "tidings_messages_total", { ...otp, outcome: "failed" })).toBe(1);
    expect(moved(whileHeld, "tidings_messages_total")).toBe(4);
    expect(
      moved(whileHeld, "tidings_message_lifecycle_events_total", { topic: "message.sent" }),
    ).toBe(4);
    expect(
      moved(whileHeld, "tidings_message_lifecycle_events_total", { topic: "message.failed" }),
    ).toBe(1);
    expect(
      moved(whileHeld, "tidings_webhook_attempt_duration_seconds_count", { outcome: "5xx" }),
    ).toBeGreaterThanOrEqual(1);

    // Released, the held deliveries land: 2xx attempts, and the backlog drains.
    hooks.release();
    const released = await eventually("the backlog drained after the release", async () => {
      const now = await scrape(metricsUrl);
      return now.value("tidings_webhook_backlog") === 0 &&
        moved(now, "tidings_webhook_attempts_total", { outcome: "2xx" }) >= 1
        ? now
        : undefined;
    });
    expect(released.value("tidings_webhook_oldest_due_seconds")).toBe(0);
    expect(released.value("tidings_storage_busy_total")).toBe(0);

    // The Node.js process metrics ride along.
    for (const name of [
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
      "process_cpu_seconds_total",
    ]) {
      expect(released.has(name), name).toBe(true);
    }
    expect(released.text).toContain("# TYPE nodejs_gc_duration_seconds histogram");

    // No label holds an id, a phone number, an email or a URL.
    for (const secret of [
      ...ids,
      ...messageIds,
      PHONE,
      "4155550123",
      EMAIL,
      "127.0.0.1",
      "receiver-secret",
      tidings.token,
    ]) {
      expect(released.text).not.toContain(secret);
    }
  });

  it("counts a request given up because another process held SQLite's write lock", async () => {
    const tidings = await served();
    const metricsUrl = `${tidings.url}/metrics`;
    const before = (await scrape(metricsUrl)).value("tidings_storage_busy_total");
    const other = new Database(tidings.databasePath);
    other.exec("BEGIN IMMEDIATE");
    try {
      const refused = await tidings.call("POST", "/v1/profiles", { phone_number: PHONE });
      expect(refused.status).toBe(503);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    const after = await scrape(metricsUrl);
    expect(after.value("tidings_storage_busy_total") - before).toBeGreaterThanOrEqual(1);
    expect(
      after.value("tidings_http_requests_total", { route: "/v1/profiles", status: "503" }),
    ).toBe(1);
  });

  // 10,000 requests: a few seconds alone, longer while the whole suite shares the machine.
  it("keeps its labels bounded under 10,000 distinct profile ids and paths", {
    timeout: 120_000,
  }, async () => {
    const tidings = await served();
    const ids = Array.from({ length: 10_000 }, (_, i) => `prf_${i.toString(36).padStart(8, "0")}`);
    let next = 0;
    // 16 requests in flight at a time, over keep-alive connections.
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < ids.length; i = next++) {
          const path = i % 2 === 0 ? `/v1/profiles/${ids[i]}` : `/v1/unknown/${ids[i]}`;
          const answer = await tidings.call("GET", path);
          await answer.arrayBuffer();
        }
      }),
    );
    const now = await scrape(`${tidings.url}/metrics`);
    const requests = now.samples.filter((sample) => sample.name === "tidings_http_requests_total");
    expect(requests.reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThanOrEqual(10_000);
    const routes = new Set(requests.map((sample) => sample.labels.route));
    expect([...routes].sort()).toEqual(["/v1/profiles/{public_id}", "unmatched"]);
    // The console's pages, whose paths hold ids too, are one route.
    for (const id of ids.slice(0, 20))
      await (await fetch(`${tidings.url}/console/profiles/${id}`)).text();
    const withConsole = await scrape(`${tidings.url}/metrics`);
    expect(withConsole.value("tidings_http_requests_total", { route: "/console/*" })).toBe(20);
    expect(withConsole.text).not.toMatch(/prf_[0-9a-z]{8}/);
    // Every series of every Tidings metric: a handful, whatever the traffic was.
    const tidingsSeries = now.samples.filter((sample) => sample.name.startsWith("tidings_"));
    expect(tidingsSeries.length).toBeLessThan(300);
    expect(now.text).not.toMatch(/prf_[0-9a-z]{8}/);
  });

  it("asks for the bearer token when TIDINGS_METRICS_TOKEN is set", async () => {
    const tidings = await served({ TIDINGS_METRICS_TOKEN: "scrape-me" });
    const url = `${tidings.url}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const scraped = await fetch(url, { headers: { authorization: "Bearer scrape-me" } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toContain("text/plain");
    expect(await scraped.text()).toContain("tidings_http_requests_total");
    expect(tidings.logs().some((line) => line.msg === "metrics served without a token")).toBe(
      false,
    );
  });

  it("serves nothing at /metrics with TIDINGS_METRICS=0", async () => {
    const tidings = await served({ TIDINGS_METRICS: "0" });
    expect((await fetch(`${tidings.url}/metrics`)).status).toBe(404);
    const listening = await tidings.waitForLog("listening");
    expect(listening.metrics).toBeNull();
  });

  it("warns at start-up when it serves metrics without a token beyond loopback", async () => {
    const tidings = await served({ HOST: "0.0.0.0" });
    const warning = await tidings.waitForLog("metrics served without a token");
    expect(warning).toMatchObject({ level: "warn", host: "0.0.0.0" });
    const quiet = await served();
    expect(quiet.logs().some((line) => line.msg === "metrics served without a token")).toBe(false);
  });
});

describe("tidings worker", () => {
  it("serves /metrics on TIDINGS_METRICS_PORT, 0 picking a free port that it logs", async () => {
    const workspace = tempWorkspace();
    const worker = startInWorkspace(cleanups, workspace, ["worker"], { TIDINGS_METRICS_PORT: "0" });
    const listening = await worker.waitForLog("metrics listening");
    expect(listening.port).toEqual(expect.any(Number));
    expect(listening.port).not.toBe(0);
    const scraped = await scrape(String(listening.url));
    expect(scraped.value("tidings_webhook_backlog")).toBe(0);
    expect(scraped.has("tidings_webhook_attempts_total")).toBe(true);
    expect((await fetch(`http://127.0.0.1:${listening.port}/v1/profiles`)).status).toBe(404);
  });

  it("serves no metrics without TIDINGS_METRICS_PORT", async () => {
    const workspace = tempWorkspace();
    const worker = startInWorkspace(cleanups, workspace, ["worker"]);
    await worker.waitForLog("worker started");
    expect(worker.logs().some((line) => line.msg === "metrics listening")).toBe(false);
  });
});
