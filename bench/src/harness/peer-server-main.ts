// The straightforward server, run in its own process by peer-server.ts: what a competent
// engineer writes in an afternoon on the same libraries as Tidings, the peer every Tidings
// figure is measured against. One node:http handler per route; better-sqlite3 in WAL mode with
// synchronous NORMAL, one autocommit statement or one db.transaction() per request;
// libphonenumber-js/max and valibot; a SHA-256 lookup of the API key per request; a message row
// and an event row per send; the rate limit counted from a hits table. No batching, no caches,
// and no tricks in either direction.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Database from "better-sqlite3";
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

interface Start {
  path: string;
  template: string;
  rateLimit: number;
  rateWindowMs: number;
  synchronous: "normal" | "full";
}

process.once("message", ({ path, template, rateLimit, rateWindowMs, synchronous }: Start) => {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`);
  db.exec(`
    CREATE TABLE api_keys (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, hash TEXT NOT NULL UNIQUE);
    CREATE TABLE profiles (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, phone_number TEXT NOT NULL,
      first_name TEXT, last_name TEXT, email TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      UNIQUE (organization_id, phone_number));
    CREATE TABLE campaigns (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, template TEXT NOT NULL,
      category TEXT NOT NULL, channel TEXT NOT NULL, status TEXT NOT NULL, ttl_seconds INTEGER NOT NULL);
    CREATE TABLE messages (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, campaign_id TEXT NOT NULL,
      profile_id TEXT, phone_number TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL,
      created_at TEXT NOT NULL, expires_at TEXT NOT NULL);
    CREATE TABLE message_events (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, topic TEXT NOT NULL,
      created_at TEXT NOT NULL);
    CREATE TABLE rate_hits (api_key_id TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE INDEX rate_hits_key_at ON rate_hits (api_key_id, at);
  `);
  const token = `sk_${randomBytes(24).toString("base64url")}`;
  db.prepare("INSERT INTO api_keys VALUES (?, 'org_1', ?)").run("key_1", sha256(token));
  const campaignId = "cmp_1";
  db.prepare("INSERT INTO campaigns VALUES (?, 'org_1', ?, 'otp', 'viber', 'active', 86400)").run(
    campaignId,
    template,
  );

  const findKey = db.prepare("SELECT id, organization_id FROM api_keys WHERE hash = ?");
  const insertProfile = db.prepare(
    "INSERT INTO profiles VALUES (@id, @organization_id, @phone_number, @first_name, @last_name, @email, @created_at, @updated_at)",
  );
  const findProfile = db.prepare("SELECT * FROM profiles WHERE id = ? AND organization_id = ?");
  const findByPhone = db.prepare(
    "SELECT id FROM profiles WHERE organization_id = ? AND phone_number = ?",
  );
  const findCampaign = db.prepare("SELECT * FROM campaigns WHERE id = ? AND organization_id = ?");
  const countHits = db.prepare(
    "SELECT COUNT(*) AS n FROM rate_hits WHERE api_key_id = ? AND at > ?",
  );
  const insertHit = db.prepare("INSERT INTO rate_hits VALUES (?, ?)");
  const insertMessage = db.prepare(
    "INSERT INTO messages VALUES (@id, @organization_id, @campaign_id, @profile_id, @phone_number, @body, 'queued', @created_at, @expires_at)",
  );
  const insertEvent = db.prepare("INSERT INTO message_events VALUES (?, ?, 'message.queued', ?)");

  const authenticate = (req: IncomingMessage) => {
    const header = req.headers.authorization ?? "";
    if (!header.startsWith("Bearer ")) return null;
    return (
      (findKey.get(sha256(header.slice(7))) as
        | { id: string; organization_id: string }
        | undefined) ?? null
    );
  };

  const createProfile = async (req: IncomingMessage, res: ServerResponse, orgId: string) => {
    const parsed = v.safeParse(ProfileBody, await readBody(req));
    if (!parsed.success) return problem(res, 400, "validation_failed");
    const phone = e164(parsed.output.phone_number);
    if (phone === null) return problem(res, 400, "validation_failed");
    const now = new Date().toISOString();
    const profile = {
      id: `prf_${randomUUID().replaceAll("-", "")}`,
      organization_id: orgId,
      phone_number: phone,
      first_name: parsed.output.first_name ?? null,
      last_name: parsed.output.last_name ?? null,
      email: parsed.output.email ?? null,
      created_at: now,
      updated_at: now,
    };
    try {
      insertProfile.run(profile);
    } catch {
      return problem(res, 409, "phone_number_taken");
    }
    const { organization_id: _org, id, ...rest } = profile;
    return json(res, 201, { public_id: id, ...rest });
  };

  const getProfile = (res: ServerResponse, orgId: string, id: string) => {
    const row = findProfile.get(id, orgId) as Record<string, unknown> | undefined;
    if (row === undefined) return problem(res, 404, "profile_not_found");
    const { organization_id: _org, id: publicId, ...rest } = row;
    return json(res, 200, { public_id: publicId, ...rest });
  };

  const send = async (
    req: IncomingMessage,
    res: ServerResponse,
    key: { id: string; organization_id: string },
  ) => {
    const now = Date.now();
    const allowed = db.transaction(() => {
      const { n } = countHits.get(key.id, now - rateWindowMs) as { n: number };
      if (n >= rateLimit) return false;
      insertHit.run(key.id, now);
      return true;
    })();
    if (!allowed) return problem(res, 429, "rate_limited");
    const parsed = v.safeParse(SendBody, await readBody(req));
    if (!parsed.success) return problem(res, 400, "validation_failed");
    const body = parsed.output;
    const phone = e164(body.recipient.value);
    if (phone === null) return problem(res, 400, "validation_failed");
    const campaign = findCampaign.get(body.campaign_id, key.organization_id) as
      | { template: string; status: string; ttl_seconds: number }
      | undefined;
    if (campaign === undefined || campaign.status !== "active") {
      return problem(res, 404, "campaign_not_found");
    }
    const text = render(campaign.template, body.params);
    const profile = findByPhone.get(key.organization_id, phone) as { id: string } | undefined;
    const createdAt = new Date(now).toISOString();
    const message = {
      id: randomUUID(),
      organization_id: key.organization_id,
      campaign_id: body.campaign_id,
      profile_id: profile?.id ?? null,
      phone_number: phone,
      body: text,
      created_at: createdAt,
      expires_at: new Date(now + campaign.ttl_seconds * 1000).toISOString(),
    };
    db.transaction(() => {
      insertMessage.run(message);
      insertEvent.run(randomUUID(), message.id, createdAt);
    })();
    return json(res, 200, { message_id: message.id, status: "queued" });
  };

  const server = createServer((req, res) => {
    const key = authenticate(req);
    if (key === null) {
      req.resume();
      return problem(res, 401, "unauthorized");
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "POST" && path === "/v1/profiles") {
      return void createProfile(req, res, key.organization_id);
    }
    if (req.method === "POST" && path === "/v1/messages/send") return void send(req, res, key);
    const match = /^\/v1\/profiles\/([^/]+)$/.exec(path);
    req.resume();
    if (req.method === "GET" && match) return getProfile(res, key.organization_id, match[1]!);
    return problem(res, 404, "not_found");
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    process.send?.({ port, token, campaignId });
  });
});
