import { randomBytes } from "node:crypto";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import type { Clock } from "@tidings/core";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type CliProcess, startCliProcess } from "./testing/child-cli.js";
import { eventually } from "./testing/eventually.js";
import { startInProcess } from "./testing/in-process.js";
import { createSender } from "./testing/process-cluster.js";
import { tempWorkspace } from "./testing/run-cli.js";
import { scrape } from "./testing/scrape.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 45 through the real server, on SQLite and on PostgreSQL, with sends counted where they
// arrive: a fake Twilio. One in-process `tidings serve` per storage, on a clock the test moves
// to a few seconds before a minute (so a window opening at that minute is seconds away), takes
// the cases that need no crash; then `kill -9` of a child `serve` holding scheduled messages,
// which the next process (SQLite: a new `serve`; PostgreSQL: two `worker`s) releases once each.

const cleanups = cleanupsEach();
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const ACCOUNT = `AC${"5".repeat(32)}`;
const AUTH_TOKEN = "scheduled-sends-twilio-token";
const SHORT_CODE = "+15005550006";
/** San Francisco: the prefix's one zone is America/Los_Angeles. */
const LA_PHONE = "+14155550100";
const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

type Json = Record<string, unknown>;
const json = async (response: Response) => (await response.json()) as Json;

/** `HH:MM` of `at` on the wall clock of `zone`. */
function wallTime(at: number, zone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("hour")}:${part("minute")}`;
}

/** The environment that sends SMS through the fake Twilio at `url`. */
const twilioEnv = (url: string): Record<string, string> => ({
  TIDINGS_PROVIDER_SMS: "twilio",
  TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
  TIDINGS_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
  TIDINGS_TWILIO_API_URL: url,
});

async function stopChild(proc: CliProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 15_000);
  await proc.exited;
  clearTimeout(timer);
}

async function scheduledSendsThroughServe(
  storageEnv: Record<string, string>,
  crash: (kit: CrashKit) => Promise<void>,
): Promise<void> {
  const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: AUTH_TOKEN });
  cleanups.push(() => twilio.close());
  const sendsTo = (phone: string) => twilio.sends.filter((s) => s.form.To === phone);
  const workspace = tempWorkspace();
  cleanups.push(() => workspace.cleanup());
  const env: Record<string, string> = {
    ...workspace.env,
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    ...twilioEnv(twilio.url),
    ...storageEnv,
  };
  const { token, campaignId: otpCampaign } = await createSender(env, SCOPES);
  // The crash half starts its child processes while the in-process server works through its
  // cases, and sends once that server has stopped: its clock, ahead of the real one, would
  // release the crash half's messages early.
  const childEnv = { ...(process.env as Record<string, string>), ...env };
  let inProcessStopped: () => void = () => undefined;
  const serverGone = new Promise<void>((resolve) => {
    inProcessStopped = resolve;
  });
  const crashHalf = crash({
    token,
    otpCampaign,
    sendsTo,
    inProcessStopped: serverGone,
    start: async (command) => {
      const started = await startCliProcess(
        command === "serve" ? ["serve", "--port", "0"] : ["worker"],
        childEnv,
        (logged) => logged.msg === (command === "serve" ? "listening" : "worker started"),
      );
      cleanups.push(() => stopChild(started));
      const at = command === "serve" ? `http://127.0.0.1:${Number(started.ready.port)}` : "";
      return { ...started, url: at };
    },
  });
  // Its failure is reported by the await below, not as an unhandled rejection meanwhile.
  crashHalf.catch(() => undefined);

  // The server's clock runs `skew` ms ahead of the real one; the test moves it once.
  let skew = 0;
  const clock: Clock = { now: () => Date.now() + skew };
  const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env, { clock });
  let serverStopped = false;
  cleanups.push(async () => {
    if (!serverStopped) await server.stop();
  });
  const { port } = await server.waitForLog("listening");
  const url = `http://127.0.0.1:${String(port)}`;
  const call = (method: string, path: string, body?: unknown, at = url) =>
    fetch(`${at}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const view = async (id: string) => json(await call("GET", `/v1/messages/${id}`));

  const hook = await json(
    await call("POST", "/v1/webhooks", {
      url: "http://127.0.0.1:1/placeholder",
      topics: ["message.sent", "message.failed", "message.cancelled"],
    }),
  );
  const tally = await startWebhookTally(String(hook.signing_secret));
  cleanups.push(() => tally.close());
  await call("PATCH", `/v1/webhooks/${String(hook.webhook_id)}`, { url: tally.url });
  const eventsOf = (id: string) =>
    tally.received.filter((r) => r.messageId === id).map((r) => r.topic);

  // A promotional campaign without a window, for the send_at cases.
  const later = await json(
    await call("POST", "/v1/campaigns", {
      name: "Later",
      channel: "sms",
      category: "promotional",
      sender: SHORT_CODE,
      template: "Offer {{code}}",
      status: "active",
    }),
  );
  const person = async (phone: string, extra: Json = {}) => {
    const created = await call("POST", "/v1/profiles", {
      phone_number: phone,
      sms_marketing_consent: true,
      ...extra,
    });
    expect(created.status).toBe(201);
    return json(created);
  };
  const sendPromo = async (campaign: unknown, phone: string, extra: Json = {}) => {
    const answer = await call("POST", "/v1/messages/send", {
      campaign_id: campaign,
      recipient: { type: "phone_number", value: phone },
      params: { code: "A1" },
      ...extra,
    });
    expect(answer.status).toBe(200);
    return json(answer);
  };

  const [goes, cancelled, stopped] = ["+14155550111", "+14155550112", "+14155550113"];
  await Promise.all([LA_PHONE, goes, cancelled, stopped].map((phone) => person(phone)));

  // The clock moves to 5 s before a minute: a window opening at that minute, in Los Angeles,
  // where the recipient's prefix is, is 5 s away (time enough for the requests before it on a
  // busy machine).
  const opening = Math.ceil((Date.now() + 1000) / 60_000) * 60_000 + 60_000;
  skew = opening - 5000 - Date.now();
  const start = wallTime(opening, "America/Los_Angeles");
  const next = wallTime(opening + 60_000, "America/Los_Angeles");
  const windowed = await json(
    await call("POST", "/v1/campaigns", {
      name: "Offers at the minute",
      channel: "sms",
      category: "promotional",
      sender: SHORT_CODE,
      template: "Offer {{code}}",
      status: "active",
      sending_window: {
        days: DAYS,
        start,
        end: next === "00:00" ? "24:00" : next,
        skip_public_holidays: false,
      },
    }),
  );
  expect(windowed.sending_window).toMatchObject({ start });
  const held = await sendPromo(windowed.campaign_id, LA_PHONE);
  expect(held).toMatchObject({ status: "scheduled", error: null });
  expect(Date.parse(String(held.scheduled_for))).toBe(opening);
  const heldId = String(held.message_id);

  // Three send_at sends 4 s ahead: one goes, one is cancelled, one is stopped by a STOP.
  const sendAt = new Date(clock.now() + 4000).toISOString();
  const ids: Record<string, string> = {};
  await Promise.all(
    [goes, cancelled, stopped].map(async (phone) => {
      const answer = await sendPromo(later.campaign_id, phone, { send_at: sendAt });
      expect(answer).toMatchObject({ status: "scheduled" });
      expect(Date.parse(String(answer.scheduled_for))).toBe(Date.parse(sendAt));
      ids[phone] = String(answer.message_id);
    }),
  );
  const listed = await json(await call("GET", "/v1/messages?status=scheduled"));
  expect((listed.data as Json[]).map((m) => m.message_id).sort()).toEqual(
    [heldId, ...Object.values(ids)].sort(),
  );
  const metrics = () => scrape(`${url}/metrics`);
  expect((await metrics()).value("tidings_messages_scheduled")).toBe(4);
  const cancel = await call("POST", `/v1/messages/${ids[cancelled]}/cancel`);
  expect(cancel.status).toBe(200);
  expect(await json(cancel)).toMatchObject({ message_id: ids[cancelled], status: "cancelled" });
  const stop = await call("POST", "/sandbox/inbound", {
    channel: "sms",
    from: stopped,
    to: SHORT_CODE,
    text: "STOP",
  });
  expect(await json(stop)).toEqual({ outcome: "stored" });
  expect(twilio.sends).toHaveLength(0);

  // At their times: the window's message and the send_at one go once each, no earlier.
  for (const [id, phone] of [
    [heldId, LA_PHONE],
    [ids[goes] ?? "", goes],
  ] as const) {
    const sent = await eventually(`${phone} released`, async () => {
      const current = await view(id);
      return current.status === "sent" && sendsTo(phone).length > 0 ? current : undefined;
    });
    expect(sendsTo(phone)).toHaveLength(1);
    expect(sendsTo(phone)[0]?.form).toMatchObject({ From: SHORT_CODE, Body: "Offer A1" });
    // Released no earlier than its time, and its TTL (the default day) counts from then.
    const releasedAt = Date.parse(String(sent.updated_at));
    expect(releasedAt).toBeGreaterThanOrEqual(Date.parse(String(sent.scheduled_for)));
    expect(Date.parse(String(sent.expires_at))).toBe(releasedAt + 86_400_000);
  }
  const refused = await eventually("the stopped message failed", async () => {
    const current = await view(ids[stopped] ?? "");
    return current.status === "failed" ? current : undefined;
  });
  expect(refused.error).toMatchObject({ code: "recipient_opted_out" });
  await eventually("the events delivered", async () =>
    eventsOf(ids[stopped] ?? "").length > 0 &&
    eventsOf(ids[cancelled] ?? "").length > 0 &&
    eventsOf(heldId).length > 0
      ? true
      : undefined,
  );
  expect(eventsOf(ids[stopped] ?? "")).toEqual(["message.failed"]);
  expect(eventsOf(ids[cancelled] ?? "")).toEqual(["message.cancelled"]);
  expect(eventsOf(heldId)).toContain("message.sent");
  expect(tally.received.every((r) => r.verified)).toBe(true);
  // Cancelling what is no longer scheduled: 409.
  for (const id of [ids[cancelled], ids[goes]]) {
    const late = await call("POST", `/v1/messages/${id}/cancel`);
    expect(late.status).toBe(409);
    expect(await json(late)).toMatchObject({ code: "message_not_scheduled" });
  }
  expect(sendsTo(cancelled)).toHaveLength(0);
  expect(sendsTo(stopped)).toHaveLength(0);
  const counted = await metrics();
  expect(counted.value("tidings_messages_scheduled")).toBe(0);
  expect(counted.value("tidings_scheduled_releases_total", { outcome: "released" })).toBe(2);
  expect(counted.value("tidings_scheduled_releases_total", { outcome: "refused" })).toBe(1);
  expect(counted.value("tidings_message_release_lag_seconds_count")).toBe(2);
  expect(
    counted.value("tidings_message_lifecycle_events_total", { topic: "message.cancelled" }),
  ).toBe(1);

  // Bad input, each 400 naming its field.
  const badRequest = async (answer: Response, path: string) => {
    expect(answer.status).toBe(400);
    const problem = await json(answer);
    expect((problem.errors as Json[]).map((e) => e.path)).toContain(path);
  };
  for (const bad of ["tomorrow at 9", new Date(clock.now() + 31 * 86_400_000).toISOString()]) {
    await badRequest(
      await call("POST", "/v1/messages/send", {
        campaign_id: later.campaign_id,
        recipient: { type: "phone_number", value: goes },
        params: { code: "A1" },
        send_at: bad,
      }),
      "send_at",
    );
  }
  await badRequest(
    await call("PATCH", `/v1/campaigns/${String(later.campaign_id)}`, {
      sending_window: { days: ["mon"], start: "20:00", end: "09:00" },
    }),
    "sending_window.end",
  );
  await badRequest(
    await call("POST", "/v1/profiles", { phone_number: "+14155550199", time_zone: "Mars/Olympus" }),
    "time_zone",
  );

  serverStopped = true;
  await server.stop();
  inProcessStopped();
  await crashHalf;
}

/** What the crash half of a storage's test is given. */
interface CrashKit {
  token: string;
  otpCampaign: string;
  sendsTo(phone: string): readonly unknown[];
  /** Resolves once the in-process server has stopped. */
  inProcessStopped: Promise<void>;
  /** Starts a child `tidings serve` (with its URL) or `tidings worker` on the same database. */
  start(command: "serve" | "worker"): Promise<CliProcess & { url: string }>;
}

/**
 * Sends one OTP to each of `phones` with a send_at 5 s ahead through `serve`, then kills the
 * process with SIGKILL before their time; answers their ids.
 */
async function sendThenKill(
  kit: CrashKit,
  serve: CliProcess & { url: string },
  phones: readonly string[],
): Promise<string[]> {
  const sendAt = new Date(Date.now() + 5000).toISOString();
  const ids = await Promise.all(
    phones.map(async (phone) => {
      const answer = await fetch(`${serve.url}/v1/messages/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${kit.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          campaign_id: kit.otpCampaign,
          recipient: { type: "phone_number", value: phone },
          params: { pin: "4321" },
          send_at: sendAt,
        }),
      });
      const body = await json(answer);
      expect(body).toMatchObject({ status: "scheduled" });
      return String(body.message_id);
    }),
  );
  serve.child.kill("SIGKILL");
  await serve.exited;
  // Killed before their time: none reached the provider.
  for (const phone of phones) expect(kit.sendsTo(phone)).toHaveLength(0);
  return ids;
}

/**
 * Waits until each of `phones` got a send and `releasers` logged as many releases, then checks
 * that none got a second and that the releasers together released each once.
 */
async function releasedOnce(
  kit: CrashKit,
  phones: readonly string[],
  releasers: readonly CliProcess[],
): Promise<void> {
  const releasedBy = () =>
    releasers.map((p) =>
      p.logs
        .filter((l) => l.msg === "scheduled messages released")
        .reduce((sum, l) => sum + Number(l.released), 0),
    );
  const total = () => releasedBy().reduce((a, b) => a + b, 0);
  await eventually("every held message released", async () =>
    phones.every((phone) => kit.sendsTo(phone).length > 0) && total() >= phones.length
      ? true
      : undefined,
  );
  for (const phone of phones) expect(kit.sendsTo(phone)).toHaveLength(1);
  expect(total()).toBe(phones.length);
}

const phones = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `+1415555${String(from + i).padStart(4, "0")}`);

describe("scheduled sends through tidings serve (issue 45)", () => {
  it("SQLite: a window's message and a send_at go at their time, cancelled and STOPped ones never, kill -9 loses nothing", {
    timeout: 60_000,
  }, async () => {
    await scheduledSendsThroughServe({}, async (kit) => {
      const doomed = await kit.start("serve");
      await kit.inProcessStopped;
      const held = phones(300, 3);
      await sendThenKill(kit, doomed, held);
      const restarted = await kit.start("serve");
      await releasedOnce(kit, held, [restarted]);
    });
  });

  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "scheduled sends on PostgreSQL need a server; set TIDINGS_TEST_PG_URL to run them",
    ),
  )(
    "PostgreSQL: the same, and two workers release what a killed server held, each once",
    {
      timeout: 60_000,
    },
    async () => {
      const schema = `sched_${randomBytes(6).toString("hex")}`;
      const base = pgUrl ?? "";
      const admin = new pg.Pool({ connectionString: base, max: 1 });
      admin.on("error", () => undefined);
      cleanups.push(async () => {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      });
      await scheduledSendsThroughServe(
        {
          TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`,
          TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
        },
        async (kit) => {
          const [doomed, ...workers] = await Promise.all([
            kit.start("serve"),
            kit.start("worker"),
            kit.start("worker"),
          ]);
          await kit.inProcessStopped;
          const held = phones(400, 20);
          await sendThenKill(kit, doomed, held);
          await releasedOnce(kit, held, workers);
        },
      );
    },
  );
});
