import { statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import { cleanupsEach, within } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { startInWorkspace } from "./testing/in-process.js";
import { tempWorkspace } from "./testing/run-cli.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";

// What docs/security.md promises, each through the real server on SQLite.

const cleanups = cleanupsEach();

async function served(env: Record<string, string> = {}): Promise<ServedTidings> {
  const tidings = await serveTidings(env);
  cleanups.push(() => tidings.stop());
  return tidings;
}

/** A receiver on loopback that answers 204 and counts what it got, with the paths asked. */
async function receiver(): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? "");
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

const sendBody = (tidings: ServedTidings, extra: Record<string, unknown> = {}) => ({
  campaign_id: tidings.campaignId,
  recipient: { type: "phone_number", value: "+14155550101" },
  params: { pin: "1234" },
  ...extra,
});

const errorsOf = async (response: Response) =>
  ((await response.json()) as { errors?: unknown }).errors;

describe("input the server refuses", () => {
  it("a per-message webhook_url longer than 2048 characters is 400 naming webhook_url", async () => {
    const tidings = await served();
    const hooks = await receiver();
    const long = `${hooks.url}/${"a".repeat(2049 - hooks.url.length)}`;
    const refused = await tidings.call(
      "POST",
      "/v1/messages/send",
      sendBody(tidings, { webhook_url: long }),
    );
    expect(refused.status).toBe(400);
    expect(await errorsOf(refused)).toEqual([
      { path: "webhook_url", message: "must be at most 2048 characters." },
    ]);
    const longest = long.slice(0, 2048);
    const sent = await tidings.call(
      "POST",
      "/v1/messages/send",
      sendBody(tidings, { webhook_url: longest }),
    );
    expect(sent.status).toBe(200);
  });

  it.each([
    [
      "POST",
      "/v1/profiles",
      { phone_number: "+14155550102", first_name: "An\ud800" },
      "first_name",
    ],
    [
      "POST",
      "/v1/profiles",
      { phone_number: "+14155550102", attributes: { nick: ["ok", "\udc00"] } },
      "attributes.nick[1]",
    ],
    ["POST", "/v1/profiles", { phone_number: "+14155550102", "\ud83d": 1 }, "\ud83d"],
    ["POST", "/v1/messages/send", { params: { pin: "12\udfff" } }, "params.pin"],
    ["POST", "/v1/messages/send", { client_reference: "ref-\ud800" }, "client_reference"],
    [
      "POST",
      "/v1/webhooks",
      { url: "http://127.0.0.1:9/x", topics: ["message.sent"], description: "\udbff!" },
      "description",
    ],
  ])(
    "a lone UTF-16 surrogate in %s %s is 400 naming the field",
    async (method, path, body, field) => {
      const tidings = await served();
      const payload = path === "/v1/messages/send" ? sendBody(tidings, body) : body;
      const answer = await tidings.call(method, path, payload);
      expect(answer.status).toBe(400);
      const problem = (await answer.json()) as { code: string; errors: unknown };
      expect(problem.code).toBe("validation_failed");
      expect(problem.errors).toEqual([
        { path: field, message: expect.stringMatching(/surrogate/) },
      ]);
    },
  );

  it("a whole surrogate pair (an emoji) is text like any other, and nothing refused was stored", async () => {
    const tidings = await served();
    const refused = await tidings.call("POST", "/v1/profiles", {
      phone_number: "+14155550103",
      first_name: "\ud83d",
    });
    expect(refused.status).toBe(400);
    const created = await tidings.call("POST", "/v1/profiles", {
      phone_number: "+14155550103",
      first_name: "Ana \ud83d\ude00",
    });
    expect(created.status).toBe(201);
    const listed = (await (await tidings.call("GET", "/v1/profiles")).json()) as {
      data: Array<{ first_name: string }>;
    };
    expect(listed.data.map((p) => p.first_name)).toEqual(["Ana 😀"]);
  });

  it("malformed HTTP is answered with problem+json and Connection: close", async () => {
    const tidings = await served();
    const { port } = new URL(tidings.url);
    const socket = connect(Number(port), "127.0.0.1");
    cleanups.push(async () => {
      socket.destroy();
    });
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write("GARBAGE\r\n\r\n");
    await within(10_000, "the server to close the connection", closed);
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(received).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(JSON.parse(received.split("\r\n\r\n")[1] ?? "")).toMatchObject({
      code: "malformed_request",
    });
  });
});

describe("POST /v1/webhooks/test is rate-limited per key", () => {
  it("answers like sends: RateLimit headers on every answer, then 429 with Retry-After", async () => {
    const tidings = await served({ TIDINGS_WEBHOOK_TEST_RATE_LIMIT: "3/60s" });
    const hooks = await receiver();
    const created = await tidings.call("POST", "/v1/webhooks", {
      url: `${hooks.url}/in`,
      topics: ["message.sent"],
    });
    expect(created.status).toBe(201);
    const { webhook_id: id } = (await created.json()) as { webhook_id: string };

    const answers = [];
    answers.push(await tidings.call("POST", "/v1/webhooks/test", { webhook_id: id }));
    // A refused body is counted too, so probing is not free.
    answers.push(await tidings.call("POST", "/v1/webhooks/test", { webhook: id }));
    answers.push(await tidings.call("POST", "/v1/webhooks/test", { webhook_id: id }));
    answers.push(await tidings.call("POST", "/v1/webhooks/test", { webhook_id: id }));
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 429]);
    expect(answers.map((a) => a.headers.get("ratelimit-limit"))).toEqual(["3", "3", "3", "3"]);
    expect(answers.map((a) => a.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
    const refused = answers[3] as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({
      code: "rate_limited",
      detail: expect.stringContaining("test webhooks"),
    });
    // Two tests reached the receiver; the refused ones never left.
    expect(hooks.paths).toEqual(["/in", "/in"]);
    // Sends keep their own budget.
    const send = await tidings.call("POST", "/v1/messages/send", sendBody(tidings));
    expect(send.headers.get("ratelimit-limit")).toBe("100");
  });
});

describe("what is logged", () => {
  it("webhook URLs appear as scheme, host and path, never with their query string", async () => {
    const tidings = await served();
    const hooks = await receiver();
    const created = await tidings.call("POST", "/v1/webhooks", {
      url: `${hooks.url}/subscribed?token=sub-s3cret`,
      topics: ["message.sent"],
    });
    const { webhook_id: id } = (await created.json()) as { webhook_id: string };
    expect((await tidings.call("POST", "/v1/webhooks/test", { webhook_id: id })).status).toBe(200);
    const sent = await tidings.call(
      "POST",
      "/v1/messages/send",
      sendBody(tidings, { webhook_url: `${hooks.url}/own?token=msg-s3cret` }),
    );
    expect(sent.status).toBe(200);
    // Without a URL of its own, a message's events go to the subscription.
    const toSubscription = await tidings.call(
      "POST",
      "/v1/messages/send",
      sendBody(tidings, { recipient: { type: "phone_number", value: "+14155550109" } }),
    );
    expect(toSubscription.status).toBe(200);
    const attempt = (url: string) => tidings.waitForLog("webhook attempt", (l) => l.url === url);
    await attempt(`${hooks.url}/subscribed`);
    await attempt(`${hooks.url}/own`);
    // The receiver got the whole URL; the log never did.
    expect(hooks.paths).toEqual(
      expect.arrayContaining(["/subscribed?token=sub-s3cret", "/own?token=msg-s3cret"]),
    );
    for (const line of tidings.logs()) expect(JSON.stringify(line)).not.toContain("s3cret");
  });
});

describe("the SQLite files", () => {
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  /** `serve` on the workspace's database, as it is, until the test ends. */
  async function serveIn(workspace: ReturnType<typeof tempWorkspace>) {
    const server = startInWorkspace(cleanups, workspace, ["serve", "--port", "0"]);
    await server.waitForLog("listening");
  }

  it("a database the server creates, its -wal and -shm are readable by their owner only", async () => {
    const workspace = tempWorkspace();
    await serveIn(workspace);
    const database = join(workspace.dir, "tidings.db");
    for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}.key`]) {
      expect(modeOf(file), file).toBe(0o600);
    }
  });

  it("an existing database readable by others is narrowed to 0600 when opened", async () => {
    const workspace = tempWorkspace();
    const database = join(workspace.dir, "tidings.db");
    const made = new Database(database);
    made.exec("PRAGMA journal_mode = WAL; CREATE TABLE early (x)");
    made.close();
    expect(modeOf(database) & 0o077, "readable by others, as SQLite creates it").not.toBe(0);
    await serveIn(workspace);
    for (const file of [database, `${database}-wal`, `${database}-shm`]) {
      expect(modeOf(file), file).toBe(0o600);
    }
  });
});

describe("reads while another process holds the write lock", () => {
  it("a GET answers while a write waits for the lock, and the write goes on once it is free", async () => {
    const tidings = await served();
    const created = await tidings.call("POST", "/v1/profiles", { phone_number: "+14155550104" });
    const { public_id: id } = (await created.json()) as { public_id: string };

    // Another process (an import, say) holds the write lock.
    const other = new Database(tidings.databasePath);
    other.exec("BEGIN IMMEDIATE");
    const release = () => {
      if (other.inTransaction) other.exec("COMMIT");
      other.close();
    };
    cleanups.push(async () => {
      if (other.open) release();
    });
    const events: string[] = [];
    const write = tidings
      .call("POST", "/v1/profiles", { phone_number: "+14155550105" })
      .then((answer) => {
        events.push(`write ${answer.status}`);
        return answer;
      });
    // Give the write time to reach the storage and wait there (not an assertion: if it is
    // slower, the read below merely runs first, as it would anyway).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await within(10_000, "the GET", tidings.call("GET", `/v1/profiles/${id}`));
    events.push(`read ${read.status}`);
    expect(events).toEqual(["read 200"]);
    expect(await read.json()).toMatchObject({ public_id: id, phone_number: "+14155550104" });
    release();
    events.push("released");
    expect((await within(10_000, "the write", write)).status).toBe(201);
    expect(events).toEqual(["read 200", "released", "write 201"]);
  });
});
