import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { TOPICS } from "@tidings/core";
import { expect } from "vitest";
import type { CliProcess } from "./child-cli.js";
import { eventually } from "./eventually.js";
import { createSender, type Sender } from "./process-cluster.js";
import { startWebhookTally, type WebhookTally } from "./webhook-tally.js";

/**
 * Sends under a storage fault, as a careful client would: each send has its own
 * Idempotency-Key, kept for every retry of it, and is retried after a 503 or a dropped
 * connection. A send is acknowledged once it is answered 200; those are what must not be lost.
 */
export interface FaultLoad {
  /** The message ids answered 200. */
  acknowledged: Set<string>;
  /** How many answers of each status arrived. */
  statuses: Map<number, number>;
  /**
   * 503 answers that were not a storage refusal with `Retry-After` (`isStorageRefusal`), and
   * every 5xx other than 503, as `status body`.
   */
  faults: string[];
  /**
   * Sends that got no answer within `answerWithinMs` (when given), as `started at … ms`: a
   * request left waiting, where an answer (200 or 503) was owed.
   */
  late: string[];
  /** The longest any answered send waited for its answer, in ms (measured, never asserted). */
  longestWaitMs(): number;
  /** Resolves once every sender has stopped. */
  stop(): Promise<void>;
  /** Resolves once `count` more sends have been acknowledged (bounded by `ms`). */
  acknowledgedMore(count: number, what: string, ms?: number): Promise<void>;
}

/** An organization's key (with the scopes a fault test needs) and its active OTP campaign. */
export type FaultSender = Pick<Sender, "token" | "campaignId">;

/** Creates an organization, a key and an active OTP campaign with the in-process CLI. */
export const createFaultSender = (env: Record<string, string>): Promise<FaultSender> =>
  createSender(env, "messages:send,messages:read,webhooks:manage");

/**
 * The environment of a `tidings serve` under a fault test, on `databaseUrl`: the sandbox's
 * reports and webhook retries fast, no rate limit in the senders' way, no console, and a
 * storage timeout of 10 s: these faults close connections or fail writes at once, and a
 * machine busy with other tests must not turn slow answers into refusals. The test of a
 * database that hangs (`faults-hang.test.ts`) runs with the default instead.
 */
export const faultServerEnv = (databaseUrl: string): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  TIDINGS_DATABASE_URL: databaseUrl,
  TIDINGS_DEV: "1",
  TIDINGS_SANDBOX_DELAY_MS: "50",
  TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "200",
  TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "1000",
  TIDINGS_SEND_RATE_LIMIT: "1000000/60s",
  TIDINGS_LOG_LEVEL: "info",
  TIDINGS_CONSOLE: "0",
  TIDINGS_STORAGE_TIMEOUT_MS: "10000",
});

/** Subscribes a verifying receiver to every topic of the sender's organization. */
export async function subscribeEveryTopic(
  baseUrl: string,
  sender: FaultSender,
): Promise<WebhookTally> {
  let secret = "";
  const tally = await startWebhookTally(() => secret);
  const answer = await fetch(`${baseUrl}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${sender.token}`, "content-type": "application/json" },
    body: JSON.stringify({ url: tally.url, topics: [...TOPICS] }),
  });
  if (answer.status !== 201) throw new Error(`subscribe: ${answer.status} ${await answer.text()}`);
  secret = ((await answer.json()) as { signing_secret: string }).signing_secret;
  return tally;
}

/**
 * Whether a 503 is what a storage fault answers: problem+json `storage_unavailable` (saying
 * with `changed` whether anything was written) or `storage_busy`, with `Retry-After`.
 */
function isStorageRefusal(retryAfter: string | null, text: string): boolean {
  if (retryAfter === null) return false;
  let body: { code?: unknown; changed?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return false;
  }
  if (body.code === "storage_busy") return true;
  return body.code === "storage_unavailable" && (body.changed === false || body.changed === null);
}

/** The most tries one send gets, and the most sends one sender makes: every loop is bounded. */
const MAX_TRIES = 400;
const MAX_SENDS = 20_000;

/**
 * Starts `concurrency` senders against `baseUrl` until `stop()`. With `answerWithinMs`, a send
 * not answered by then is given up and noted in `late`; otherwise each waits up to 10 s.
 */
export function startFaultLoad(
  baseUrl: () => string,
  sender: FaultSender,
  concurrency = 8,
  options: { answerWithinMs?: number | undefined } = {},
): FaultLoad {
  const acknowledged = new Set<string>();
  const statuses = new Map<number, number>();
  const faults: string[] = [];
  const late: string[] = [];
  const startedAt = Date.now();
  let longestWaitMs = 0;
  let stopped = false;

  const sendOnce = async (key: string, n: number): Promise<"done" | "retry"> => {
    let answer: Response;
    const asked = Date.now();
    try {
      answer = await fetch(`${baseUrl()}/v1/messages/send`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${sender.token}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify({
          campaign_id: sender.campaignId,
          recipient: {
            type: "phone_number",
            value: `+1415555${String(n % 10_000).padStart(4, "0")}`,
          },
          params: { pin: String(n % 10_000) },
          client_reference: key,
        }),
        signal: AbortSignal.timeout(options.answerWithinMs ?? 10_000),
      });
    } catch (error) {
      if (options.answerWithinMs !== undefined && (error as Error).name === "TimeoutError") {
        late.push(`started at ${asked - startedAt} ms`);
      }
      return "retry";
    }
    const text = await answer.text();
    longestWaitMs = Math.max(longestWaitMs, Date.now() - asked);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status === 200) {
      acknowledged.add((JSON.parse(text) as { message_id: string }).message_id);
      return "done";
    }
    if (answer.status === 503) {
      if (!isStorageRefusal(answer.headers.get("retry-after"), text)) {
        faults.push(`503 not a storage refusal with Retry-After: ${text}`);
      }
      return "retry";
    }
    if (answer.status >= 500) faults.push(`${answer.status} ${text}`);
    // 409 idempotency_in_progress: a try cut off by the fault holds the key until its lock
    // ends; a client that will not wait gives the send up, unacknowledged.
    return answer.status >= 500 ? "retry" : "done";
  };

  const run = async (worker: number): Promise<void> => {
    for (let i = 0; i < MAX_SENDS && !stopped; i += 1) {
      const key = randomUUID();
      for (let tries = 0; tries < MAX_TRIES && !stopped; tries += 1) {
        if ((await sendOnce(key, worker * MAX_SENDS + i)) === "done") break;
        await sleep(50);
      }
    }
  };
  const running = Promise.all(Array.from({ length: concurrency }, (_, worker) => run(worker)));
  return {
    acknowledged,
    statuses,
    faults,
    late,
    longestWaitMs: () => longestWaitMs,
    async stop() {
      stopped = true;
      await running;
    },
    async acknowledgedMore(count, what, ms = 20_000) {
      const target = acknowledged.size + count;
      await eventually(
        what,
        async () => (acknowledged.size >= target ? true : undefined),
        ms,
      ).catch((error: unknown) => {
        const answered = JSON.stringify(Object.fromEntries(statuses));
        throw new Error(`${String(error)}; answers so far by status: ${answered}`);
      });
    },
  };
}

/**
 * What every fault test checks once the fault is over and the load stopped: the process still
 * runs and answers, every line it wrote is JSON, no answer was a 5xx but 503 with
 * `Retry-After`, every acknowledged message is stored, and its whole lifecycle reached the
 * receiver (sent, delivered and seen, from the sandbox's reports), each signed.
 */
export async function expectNothingLost(
  server: CliProcess,
  baseUrl: string,
  sender: FaultSender,
  load: FaultLoad,
  tally: WebhookTally,
): Promise<void> {
  expect(server.child.exitCode).toBeNull();
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  expect(load.faults).toEqual([]);
  expect(load.acknowledged.size).toBeGreaterThan(0);
  for (const id of load.acknowledged) {
    const answer = await fetch(`${baseUrl}/v1/messages/${id}`, {
      headers: { authorization: `Bearer ${sender.token}` },
    });
    expect(answer.status, `message ${id}`).toBe(200);
  }
  const missing = () => {
    const seen = new Set(
      tally.received.filter((r) => r.verified).map((r) => `${r.messageId} ${r.topic}`),
    );
    return [...load.acknowledged].flatMap((id) =>
      ["message.sent", "message.delivered", "message.seen"]
        .filter((topic) => !seen.has(`${id} ${topic}`))
        .map((topic) => `${id} ${topic}`),
    );
  };
  await eventually(
    "every acknowledged message's lifecycle at the receiver",
    async () => (missing().length === 0 ? true : undefined),
    60_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; missing ${missing().length}: ${missing().slice(0, 5)}`);
  });
  expect(server.logs.filter((line) => "not_json" in line)).toEqual([]);
}
