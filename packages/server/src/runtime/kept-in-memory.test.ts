import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { eventually } from "../testing/eventually.js";
import {
  createSender,
  type Sender,
  sendOtp,
  startProcessCluster,
  type TidingsProcess,
} from "../testing/process-cluster.js";
import { runCli } from "../testing/run-cli.js";

/**
 * On PostgreSQL each `tidings serve` keeps the API keys it verified, and the campaigns it sent
 * through, in memory for a few seconds, and forgets one as soon as the schema's triggers
 * announce a change to it. These tests change keys and campaigns behind the servers' backs
 * (another process, plain SQL) and ask both.
 */

const PG_URL = process.env.TIDINGS_TEST_PG_URL;
const cleanups = cleanupsEach();

const keyIdOf = (sender: Sender) => sender.token.split(":")[0] ?? "";

/** The status of a read made with the sender's key. */
const statusOf = async (server: TidingsProcess, sender: Sender): Promise<number> => {
  const response = await fetch(`${server.baseUrl}/v1/profiles?limit=1`, {
    headers: { authorization: `Bearer ${sender.token}` },
  });
  await response.arrayBuffer();
  return response.status;
};

/** `servers` serve processes on a schema of their own, keeping each key `keyMemoryMs`. */
async function servers(count: number, keyMemoryMs: number, env: Record<string, string> = {}) {
  const separator = PG_URL?.includes("?") ? "&" : "?";
  const cluster = await startProcessCluster({
    pgUrl: `${PG_URL ?? ""}${separator}key_memory_ms=${keyMemoryMs}`,
    servers: count,
    workers: 0,
    env,
  });
  cleanups.push(cluster.stop);
  return cluster;
}

describe.skipIf(
  skippedUnless(
    PG_URL !== undefined,
    "API keys, campaigns and subscriptions kept in memory on PostgreSQL need a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("API keys, campaigns and subscriptions kept in memory on PostgreSQL", () => {
  it("a key revoked by another process or by hand in SQL is refused by every server at once", async () => {
    // Kept for a minute: only the change notices can make the servers refuse within the test.
    const cluster = await servers(2, 60_000);
    const refusedEverywhere = async (sender: Sender, what: string) => {
      for (const server of cluster.servers) {
        // Bounded for a slow machine; the notice itself arrives within milliseconds.
        await eventually(
          `${what}: refused by ${server.baseUrl}`,
          async () => ((await statusOf(server, sender)) === 401 ? true : undefined),
          2_000,
        );
      }
    };

    const byCli = await createSender(cluster.env, "profiles:read");
    const bySql = await createSender(cluster.env, "profiles:read");
    for (const server of cluster.servers) {
      for (const sender of [byCli, bySql, byCli, bySql]) {
        expect(await statusOf(server, sender)).toBe(200);
      }
    }

    const revoked = await runCli(["keys", "revoke", keyIdOf(byCli)], cluster.env);
    expect(revoked.code).toBe(0);
    await refusedEverywhere(byCli, "revoked with the CLI");

    await cluster.query(`UPDATE "${cluster.schema}".api_keys SET revoked_at = $1 WHERE id = $2`, [
      new Date().toISOString(),
      keyIdOf(bySql),
    ]);
    await refusedEverywhere(bySql, "revoked in SQL");
    for (const server of cluster.servers) expect(await statusOf(server, bySql)).toBe(401);
  });

  it("a change nobody announces is honoured once the key's time in memory is over", async () => {
    const cluster = await servers(1, 3_000);
    const [server] = cluster.servers;
    if (server === undefined) throw new Error("no server started");
    const sender = await createSender(cluster.env, "profiles:read");
    expect(await statusOf(server, sender)).toBe(200);

    // With the trigger off the revocation goes unannounced, as if its notice were lost.
    await cluster.query(`ALTER TABLE "${cluster.schema}".api_keys DISABLE TRIGGER api_key_changed`);
    await cluster.query(`UPDATE "${cluster.schema}".api_keys SET revoked_at = $1 WHERE id = $2`, [
      new Date().toISOString(),
      keyIdOf(sender),
    ]);
    // Still answered from memory: the server did not read the key again.
    expect(await statusOf(server, sender)).toBe(200);
    await eventually(
      "the kept key to expire",
      async () => ((await statusOf(server, sender)) === 401 ? true : undefined),
      10_000,
    );
  });

  it("a campaign paused through another server, or made active again by hand in SQL, is seen by every server at once", async () => {
    const cluster = await servers(2, 60_000);
    const sender = await createSender(cluster.env, "messages:send,campaigns:manage");
    /** The status of a send through `server`, and the rule of its refusal if any. */
    const sendThrough = async (server: TidingsProcess): Promise<string> => {
      const response = await sendOtp(server.baseUrl, sender);
      const body = (await response.json()) as { code?: string };
      return response.ok ? String(response.status) : `${response.status} ${body.code}`;
    };
    const everywhere = async (expected: string, what: string) => {
      for (const server of cluster.servers) {
        // Bounded for a slow machine; the notice itself arrives within milliseconds.
        await eventually(
          `${what}: ${expected} from ${server.baseUrl}`,
          async () => ((await sendThrough(server)) === expected ? true : undefined),
          2_000,
        );
      }
    };
    // Each server has read the campaign, and keeps it.
    for (const server of cluster.servers) expect(await sendThrough(server)).toBe("200");

    const [first, second] = cluster.servers;
    if (first === undefined || second === undefined) throw new Error("two servers expected");
    const paused = await fetch(`${second.baseUrl}/v1/campaigns/${sender.campaignId}/deactivate`, {
      method: "POST",
      headers: { authorization: `Bearer ${sender.token}` },
    });
    expect(paused.status).toBe(200);
    // The server that paused it knows at once; the other as soon as the notice arrives.
    expect(await sendThrough(second)).toBe("400 campaign_inactive");
    await everywhere("400 campaign_inactive", "paused through the API");

    await cluster.query(
      `UPDATE "${cluster.schema}".campaigns SET status = 'active' WHERE id = $1`,
      [sender.campaignId],
    );
    await everywhere("200", "made active in SQL");
  });

  it("a subscription created through another server gets the next event of a send through this one", async () => {
    // Dev mode for a webhook URL on this machine; nothing needs to answer it.
    const cluster = await servers(2, 60_000, { TIDINGS_DEV: "1" });
    const [first, second] = cluster.servers;
    if (first === undefined || second === undefined) throw new Error("two servers expected");
    const sender = await createSender(cluster.env, "messages:send,webhooks:manage");
    /** How many deliveries the events of a send through `first` made. */
    const deliveriesOfASend = async (): Promise<number> => {
      const response = await sendOtp(first.baseUrl, sender);
      expect(response.status).toBe(200);
      const { message_id } = (await response.json()) as { message_id: string };
      const [row] = await cluster.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${cluster.schema}".deliveries WHERE message_id = $1`,
        [message_id],
      );
      return row?.n ?? 0;
    };
    // The first server has looked up where the organization's events go: nowhere, and keeps it.
    expect(await deliveriesOfASend()).toBe(0);
    expect(await deliveriesOfASend()).toBe(0);

    const created = await fetch(`${second.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${sender.token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", topics: ["message.sent"] }),
    });
    expect(created.status).toBe(201);
    // Bounded for a slow machine; the notice itself arrives within milliseconds.
    await eventually(
      "a send through the first server to be delivered to the new subscription",
      async () => ((await deliveriesOfASend()) === 1 ? true : undefined),
      2_000,
    );
  });
});
