// The straightforward server on PostgreSQL, run in its own process by peer-server.ts: the
// SQLite peer's routes, bodies and answers (peer-http.ts) on node-postgres, the peer every
// Tidings figure on PostgreSQL is measured against. A `pg.Pool` of 10 sending plain
// parameterized statements (unnamed: parsed and planned on every call), in a schema of its
// own. Every request starts with `SELECT org, hash FROM keys WHERE id = $1`, the key's id
// being part of its token. A profile is one autocommit INSERT. A send reads its campaign,
// then runs one transaction of plain statements: BEGIN, pg_advisory_xact_lock(hashtext(key))
// (so the rate limit is exact across connections), the key's hits in the window counted, the
// hit inserted, the profile found by phone and inserted if missing, the message and its
// `message.sent` event inserted, COMMIT. No batching, no caches, no tricks in either direction.
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";
import * as v from "valibot";
import {
  e164,
  json,
  ProfileBody,
  problem,
  readBody,
  render,
  SendBody,
  sha256,
} from "./peer-http.js";

export interface PgPeerStart {
  /** The database to make the schema in. */
  url: string;
  /** A new schema's name: the peer's tables live there only. */
  schema: string;
  /** Set on every connection, so the bench can find the peer's backends. */
  applicationName: string;
  template: string;
  rateLimit: number;
  rateWindowMs: number;
}

interface Key {
  id: string;
  org: string;
}

process.once("message", async (start: PgPeerStart) => {
  const { url, schema, applicationName, template, rateLimit, rateWindowMs } = start;
  const setup = new pg.Client({ connectionString: url, application_name: applicationName });
  await setup.connect();
  await setup.query(`CREATE SCHEMA "${schema}"`);
  await setup.query(`SET search_path TO "${schema}"`);
  await setup.query(`
    CREATE TABLE keys (id text PRIMARY KEY, org text NOT NULL, hash text NOT NULL);
    CREATE TABLE profiles (id text PRIMARY KEY, org text NOT NULL, phone_number text NOT NULL,
      first_name text, last_name text, email text, created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL, UNIQUE (org, phone_number));
    CREATE TABLE campaigns (id text PRIMARY KEY, org text NOT NULL, template text NOT NULL,
      category text NOT NULL, channel text NOT NULL, status text NOT NULL, ttl_seconds integer NOT NULL);
    CREATE TABLE messages (id uuid PRIMARY KEY, org text NOT NULL, campaign_id text NOT NULL,
      profile_id text NOT NULL, phone_number text NOT NULL, body text NOT NULL, status text NOT NULL,
      created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL);
    CREATE TABLE message_events (id uuid PRIMARY KEY, message_id uuid NOT NULL, topic text NOT NULL,
      created_at timestamptz NOT NULL);
    CREATE TABLE rate_hits (key_id text NOT NULL, at timestamptz NOT NULL);
    CREATE INDEX rate_hits_key_at ON rate_hits (key_id, at);
  `);
  const keyId = "key1";
  const token = `sk_${keyId}.${randomBytes(24).toString("base64url")}`;
  await setup.query("INSERT INTO keys VALUES ($1, 'org_1', $2)", [keyId, sha256(token)]);
  const campaignId = "cmp_1";
  await setup.query(
    "INSERT INTO campaigns VALUES ($1, 'org_1', $2, 'otp', 'viber', 'active', 86400)",
    [campaignId, template],
  );
  await setup.end();

  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    application_name: applicationName,
    options: `-c search_path="${schema}"`,
  });
  pool.on("error", () => undefined);

  /** The key the request's bearer token names, when the token matches its hash. */
  const authenticate = async (req: IncomingMessage): Promise<Key | null> => {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer (sk_([A-Za-z0-9]+)\.[A-Za-z0-9_-]+)$/.exec(header);
    if (match === null) return null;
    const { rows } = await pool.query<{ org: string; hash: string }>(
      "SELECT org, hash FROM keys WHERE id = $1",
      [match[2]],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const given = Buffer.from(sha256(match[1]!));
    const stored = Buffer.from(row.hash);
    return given.length === stored.length && timingSafeEqual(given, stored)
      ? { id: match[2]!, org: row.org }
      : null;
  };

  const createProfile = async (req: IncomingMessage, res: ServerResponse, key: Key) => {
    const parsed = v.safeParse(ProfileBody, await readBody(req));
    if (!parsed.success) return problem(res, 400, "validation_failed");
    const phone = e164(parsed.output.phone_number);
    if (phone === null) return problem(res, 400, "validation_failed");
    const now = new Date();
    const profile = {
      id: `prf_${randomUUID().replaceAll("-", "")}`,
      phone_number: phone,
      first_name: parsed.output.first_name ?? null,
      last_name: parsed.output.last_name ?? null,
      email: parsed.output.email ?? null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    try {
      await pool.query("INSERT INTO profiles VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
        profile.id,
        key.org,
        profile.phone_number,
        profile.first_name,
        profile.last_name,
        profile.email,
        now,
        now,
      ]);
    } catch (error) {
      if ((error as { code?: string }).code === "23505") {
        return problem(res, 409, "phone_number_taken");
      }
      throw error;
    }
    const { id, ...rest } = profile;
    return json(res, 201, { public_id: id, ...rest });
  };

  const getProfile = async (res: ServerResponse, key: Key, id: string) => {
    const { rows } = await pool.query<Record<string, unknown>>(
      "SELECT * FROM profiles WHERE id = $1 AND org = $2",
      [id, key.org],
    );
    const row = rows[0];
    if (row === undefined) return problem(res, 404, "profile_not_found");
    const { org: _org, id: publicId, created_at, updated_at, ...rest } = row;
    return json(res, 200, {
      public_id: publicId,
      ...rest,
      created_at: (created_at as Date).toISOString(),
      updated_at: (updated_at as Date).toISOString(),
    });
  };

  const send = async (req: IncomingMessage, res: ServerResponse, key: Key) => {
    const parsed = v.safeParse(SendBody, await readBody(req));
    if (!parsed.success) return problem(res, 400, "validation_failed");
    const body = parsed.output;
    const phone = e164(body.recipient.value);
    if (phone === null) return problem(res, 400, "validation_failed");
    const { rows: campaigns } = await pool.query<{
      template: string;
      status: string;
      ttl_seconds: number;
    }>("SELECT template, status, ttl_seconds FROM campaigns WHERE id = $1 AND org = $2", [
      body.campaign_id,
      key.org,
    ]);
    const campaign = campaigns[0];
    if (campaign === undefined || campaign.status !== "active") {
      return problem(res, 404, "campaign_not_found");
    }
    const text = render(campaign.template, body.params);
    const client = await pool.connect();
    let messageId: string | null = null;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [key.id]);
      const now = new Date();
      const { rows: hits } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM rate_hits WHERE key_id = $1 AND at > $2",
        [key.id, new Date(now.getTime() - rateWindowMs)],
      );
      if ((hits[0]?.n ?? 0) < rateLimit) {
        await client.query("INSERT INTO rate_hits VALUES ($1, $2)", [key.id, now]);
        const { rows: profiles } = await client.query<{ id: string }>(
          "SELECT id FROM profiles WHERE org = $1 AND phone_number = $2",
          [key.org, phone],
        );
        let profileId = profiles[0]?.id;
        if (profileId === undefined) {
          profileId = `prf_${randomUUID().replaceAll("-", "")}`;
          await client.query(
            "INSERT INTO profiles (id, org, phone_number, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            [profileId, key.org, phone, now],
          );
        }
        messageId = randomUUID();
        await client.query(
          "INSERT INTO messages VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8)",
          [
            messageId,
            key.org,
            body.campaign_id,
            profileId,
            phone,
            text,
            now,
            new Date(now.getTime() + campaign.ttl_seconds * 1000),
          ],
        );
        await client.query("INSERT INTO message_events VALUES ($1, $2, 'message.sent', $3)", [
          randomUUID(),
          messageId,
          now,
        ]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (messageId === null) return problem(res, 429, "rate_limited");
    return json(res, 200, { message_id: messageId, status: "queued" });
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const key = await authenticate(req);
    if (key === null) {
      req.resume();
      return problem(res, 401, "unauthorized");
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "POST" && path === "/v1/profiles") return createProfile(req, res, key);
    if (req.method === "POST" && path === "/v1/messages/send") return send(req, res, key);
    const match = /^\/v1\/profiles\/([^/]+)$/.exec(path);
    req.resume();
    if (req.method === "GET" && match) return getProfile(res, key, match[1]!);
    return problem(res, 404, "not_found");
  };

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) problem(res, 500, "internal_error");
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    process.send?.({ port, token, campaignId });
  });
  process.once("SIGTERM", () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  });
});
