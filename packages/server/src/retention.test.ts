import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { waitUntil } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServer } from "./testing/child-cli.js";
import { createSender } from "./testing/process-cluster.js";
import { runCli, tempWorkspace } from "./testing/run-cli.js";

let workspace: ReturnType<typeof tempWorkspace>;
const receivers: Server[] = [];
beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(async () => {
  for (const server of receivers.splice(0)) await new Promise((done) => server.close(done));
  workspace.cleanup();
});

/** A webhook receiver on 127.0.0.1 answering every POST with `status`; resolves to its URL. */
async function receiver(status: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status).end(status === 200 ? "ok" : "down"));
  });
  receivers.push(server);
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

describe("retention through the running server", () => {
  it("deletes a message with its events, deliveries and attempts once it is older than TIDINGS_RETENTION, keeps one still being retried until its delivery ends, and forgets idempotency keys after TIDINGS_IDEMPOTENCY_TTL", async () => {
    const env = {
      ...workspace.env,
      TIDINGS_DEV: "1",
      TIDINGS_LOG_LEVEL: "info",
      TIDINGS_SANDBOX_DELAY_MS: "50",
      TIDINGS_RETENTION: "2s",
      TIDINGS_IDEMPOTENCY_TTL: "2s",
      TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "300",
      TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "300",
      TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "6000",
    };
    const { token, campaignId: campaign_id } = await createSender(
      env,
      "profiles:read,profiles:write,messages:send,messages:read",
    );
    const server = await startServer(env);
    const api = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const working = await receiver(200);
    const failing = await receiver(500);
    const profile = await api("/v1/profiles", { phone_number: "+14155550101" });
    expect(profile.status).toBe(201);
    const { public_id } = (await profile.json()) as { public_id: string };
    const send = (webhookUrl: string, pin: string) => ({
      campaign_id,
      recipient: { type: "phone_number", value: "+14155550101" },
      params: { pin },
      webhook_url: webhookUrl,
    });
    const first = await api("/v1/messages/send", send(working, "1111"), {
      "idempotency-key": "k1",
    });
    expect(first.status).toBe(200);
    const done = ((await first.json()) as { message_id: string }).message_id;
    const retried = await api("/v1/messages/send", send(failing, "2222"));
    const owed = ((await retried.json()) as { message_id: string }).message_id;
    const replay = await api("/v1/messages/send", send(working, "1111"), {
      "idempotency-key": "k1",
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    // Readable through the operator API while it is kept.
    const readable = await api(`/v1/messages/${done}`);
    expect(readable.status).toBe(200);
    expect(((await readable.json()) as { message_id: string }).message_id).toBe(done);

    const db = new Database(join(workspace.dir, "tidings.db"), { readonly: true });
    try {
      const count = (sql: string, id: string) => (db.prepare(sql).get(id) as { n: number }).n;
      const rowsOf = (id: string) => ({
        messages: count("SELECT COUNT(*) AS n FROM messages WHERE id = ?", id),
        events: count("SELECT COUNT(*) AS n FROM message_events WHERE message_id = ?", id),
        deliveries: count("SELECT COUNT(*) AS n FROM deliveries WHERE message_id = ?", id),
        attempts: count(
          `SELECT COUNT(*) AS n FROM delivery_attempts
           WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id = ?)`,
          id,
        ),
      });
      const pendingOf = (id: string) =>
        count(
          "SELECT COUNT(*) AS n FROM deliveries WHERE message_id = ? AND status = 'pending'",
          id,
        );
      // Both messages went through their lifecycle and were delivered (or tried) first.
      await waitUntil(
        "the delivered message's three attempts",
        5_000,
        () => rowsOf(done).attempts >= 3,
      );
      expect(rowsOf(done)).toMatchObject({ messages: 1, events: 3, deliveries: 3 });

      // The delivered message goes, whole; the one still being retried stays, whole.
      await waitUntil(
        "the delivered message to be deleted",
        8_000,
        () => rowsOf(done).messages === 0,
      );
      expect(rowsOf(done)).toEqual({ messages: 0, events: 0, deliveries: 0, attempts: 0 });
      // Swept: the API answers 404 as for any unknown id; the message still owed reads whole.
      const swept = await api(`/v1/messages/${done}`);
      expect(swept.status).toBe(404);
      expect(swept.headers.get("content-type")).toContain("application/problem+json");
      expect(((await swept.json()) as { code: string }).code).toBe("message_not_found");
      expect((await api(`/v1/messages/${owed}`)).status).toBe(200);
      expect(pendingOf(owed)).toBeGreaterThan(0);
      expect(rowsOf(owed)).toMatchObject({ messages: 1, events: 3, deliveries: 3 });

      // Its deliveries fail at the end of the 6 s retry window; then it goes too.
      await waitUntil(
        "the retried message to be deleted",
        15_000,
        () => rowsOf(owed).messages === 0,
      );
      expect(rowsOf(owed)).toEqual({ messages: 0, events: 0, deliveries: 0, attempts: 0 });
      expect((await api(`/v1/messages/${owed}`)).status).toBe(404);
      expect(count("SELECT COUNT(*) AS n FROM idempotency_records WHERE key = ?", "k1")).toBe(0);
    } finally {
      db.close();
    }

    // The key answers as a new request: another body is no longer a reuse (422).
    const fresh = await api("/v1/messages/send", send(working, "3333"), {
      "idempotency-key": "k1",
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    // What retention never deletes.
    expect((await api(`/v1/profiles/${public_id}`)).status).toBe(200);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const lines = server.logs;
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: "warn",
          msg: expect.stringMatching(
            /^TIDINGS_RETENTION \(2s\) is shorter than the webhook retry window \(6s\)/,
          ),
        }),
        expect.objectContaining({ level: "info", msg: "retention swept" }),
      ]),
    );
  }, 60_000);

  it("refuses to start with a bad duration, naming the variable", async () => {
    const run = await runCli(["serve", "--port", "0"], {
      ...workspace.env,
      TIDINGS_RETENTION: "90 days",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("TIDINGS_RETENTION");
  });
});
