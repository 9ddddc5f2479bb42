// The PostgreSQL peer does what the benchmark says it does: the requests answered as the SQLite
// peer answers them, the rows a send writes, the limit enforced, and the round trips each
// request costs as the round-trip hook counts them. Needs TIDINGS_TEST_PG_URL.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { skippedUnless, waitUntil } from "@tidings/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./api.js";
import { type PgPeerServer, startPgPeerServer } from "./peer-server.js";
import { roundTripCounting, roundTrips } from "./pg-stats.js";

const url = process.env.TIDINGS_TEST_PG_URL;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
// The peer is TypeScript run as its own process: it loads tsx as the benchmark's runs do.
const tsx = pathToFileURL(here("../../node_modules/tsx/dist/loader.mjs")).href;

describe.skipIf(skippedUnless(url !== undefined, "the PostgreSQL peer needs TIDINGS_TEST_PG_URL"))(
  "the PostgreSQL peer",
  () => {
    const countFile = join(tmpdir(), `pg-peer-test-${randomBytes(4).toString("hex")}.count`);
    const applicationName = `pg-peer-test-${randomBytes(4).toString("hex")}`;
    let peer: PgPeerServer;
    const db = new pg.Client({ connectionString: url });

    beforeAll(async () => {
      const counting = roundTripCounting(countFile, here("./pg-peer-server-main.ts"));
      peer = await startPgPeerServer({
        url: url!,
        applicationName,
        template: "Your {{brand}} code is {{pin}}.",
        rateLimit: 2,
        rateWindowMs: 60_000,
        env: counting.env,
        nodeArgs: ["--import", tsx, ...counting.nodeArgs],
      });
      await db.connect();
    });

    afterAll(async () => {
      await db.end();
      await peer?.stop();
      rmSync(countFile, { force: true });
    });

    /** The hook writes its count ten times a second: a pause longer than that shows it all. */
    const written = () => new Promise((resolve) => setTimeout(resolve, 250));

    /** The round trips `request` cost the peer, once the hook has written them all. */
    const counted = async (expected: number, request: () => Promise<unknown>) => {
      await written();
      const before = roundTrips(countFile);
      const answer = await request();
      await waitUntil(
        "the round-trip count",
        5000,
        () => roundTrips(countFile) >= before + expected,
      );
      // Every statement of the request ran before its answer; a later write shows no more.
      await written();
      return { answer, roundTrips: roundTrips(countFile) - before };
    };

    const send = (phone: string) =>
      call(peer.url, peer.token, "POST", "/v1/messages/send", {
        campaign_id: peer.campaignId,
        recipient: { type: "phone_number", value: phone },
        params: { brand: "Acme", pin: 123456 },
      });

    it("creates a profile in one INSERT after the key's read, and refuses its number twice", async () => {
      const created = await counted(2, () =>
        call(peer.url, peer.token, "POST", "/v1/profiles", {
          phone_number: "+14155550100",
          first_name: "Ada",
        }),
      );
      expect(created.roundTrips).toBe(2);
      expect(created.answer).toMatchObject({ status: 201 });
      const again = await call(peer.url, peer.token, "POST", "/v1/profiles", {
        phone_number: "+14155550100",
      });
      expect(again.status).toBe(409);
      const id = (JSON.parse((created.answer as { body: string }).body) as { public_id: string })
        .public_id;
      const read = await call(peer.url, peer.token, "GET", `/v1/profiles/${id}`);
      expect(JSON.parse(read.body)).toMatchObject({ public_id: id, phone_number: "+14155550100" });
      expect((await call(peer.url, `${peer.token}x`, "GET", `/v1/profiles/${id}`)).status).toBe(
        401,
      );
    });

    it("sends in one transaction of plain statements, creating a missing profile, until the limit", async () => {
      // Key, campaign, BEGIN, lock, count, hit, profile, message, event, COMMIT.
      const known = await counted(10, () => send("+14155550100"));
      expect(known.answer).toMatchObject({ status: 200 });
      expect(known.roundTrips).toBe(10);
      // The same and the profile's INSERT.
      const unknown = await counted(11, () => send("+14155550101"));
      expect(unknown.answer).toMatchObject({ status: 200 });
      expect(unknown.roundTrips).toBe(11);
      // Key, campaign, BEGIN, lock, count, COMMIT: refused, nothing written.
      const refused = await counted(6, () => send("+14155550102"));
      expect(refused.answer).toMatchObject({ status: 429 });
      expect(refused.roundTrips).toBe(6);

      const count = async (sql: string) =>
        Number(
          (await db.query<{ n: string }>(`SELECT count(*) AS n FROM "${peer.schema}".${sql}`))
            .rows[0]?.n,
        );
      expect(await count("messages")).toBe(2);
      expect(await count("message_events WHERE topic = 'message.sent'")).toBe(2);
      expect(await count("rate_hits")).toBe(2);
      expect(await count("profiles WHERE phone_number = '+14155550101'")).toBe(1);
      expect(await count("profiles WHERE phone_number = '+14155550102'")).toBe(0);
    });

    it("names its connections, so the benchmark finds its backends", async () => {
      const { rows } = await db.query(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
        [applicationName],
      );
      expect(rows.length).toBeGreaterThan(0);
    });
  },
);
