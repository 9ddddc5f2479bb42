import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@tidings/core";

/** One webhook request as the receiver saw it. */
export interface ReceivedWebhook {
  deliveryId: string;
  topic: string;
  messageId: string;
  /** The body's `data`, as posted. */
  data: Record<string, unknown>;
  /** The signature checked out against the secret and the body's `id` matched the header. */
  verified: boolean;
  arrivedAt: number;
  /**
   * `open` while the receiver holds it; `answered` once a 200 was written to a live connection;
   * `aborted` when the sender hung up (or was killed) before the answer.
   */
  outcome: "open" | "answered" | "aborted";
  endedAt: number | null;
}

/** A local webhook receiver that records every request by its X-Service-Delivery-Id. */
export interface WebhookTally {
  url: string;
  received: ReceivedWebhook[];
  /** The requests held right now. */
  open(): ReceivedWebhook[];
  /** Answers every held request with 200 and, from now on, answers at once. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1:0 that verifies each request's signature with `secret` (or
 * the secret it answers when a request arrives, for one known only later) and
 * answers 200. With `hold`, it answers nothing until `release()`, so senders keep their
 * requests (and their leases) in flight for as long as a test needs.
 */
export async function startWebhookTally(
  secret: string | (() => string),
  options: { hold?: boolean } = {},
): Promise<WebhookTally> {
  const received: ReceivedWebhook[] = [];
  const held: Array<() => void> = [];
  let holding = options.hold ?? false;

  const answer = (entry: ReceivedWebhook, res: ServerResponse) => () => {
    if (entry.outcome !== "open") return;
    res.on("finish", () => {
      if (entry.outcome === "open") entry.outcome = "answered";
      entry.endedAt = Date.now();
    });
    res.writeHead(200).end();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const deliveryId = String(req.headers["x-service-delivery-id"]);
      let body: {
        id?: unknown;
        topic?: unknown;
        data?: { message_id?: unknown } & Record<string, unknown>;
      } = {};
      try {
        body = JSON.parse(raw.toString()) as typeof body;
      } catch {
        // Left empty: `verified` below then fails on the id.
      }
      const entry: ReceivedWebhook = {
        deliveryId,
        topic: String(body.topic),
        messageId: String(body.data?.message_id),
        data: body.data ?? {},
        verified:
          verifyWebhook(raw, req.headers, typeof secret === "string" ? secret : secret()).isOk() &&
          body.id === deliveryId,
        arrivedAt: Date.now(),
        outcome: "open",
        endedAt: null,
      };
      received.push(entry);
      // `close` before `finish` means the sender went away without our answer.
      res.on("close", () => {
        if (!res.writableFinished && entry.outcome === "open") {
          entry.outcome = "aborted";
          entry.endedAt = Date.now();
        }
      });
      if (holding) held.push(answer(entry, res));
      else answer(entry, res)();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    open: () => received.filter((r) => r.outcome === "open"),
    release() {
      holding = false;
      for (const respond of held.splice(0)) respond();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver that only notes which topics arrived. */
export interface TopicReceiver {
  url: string;
  /** Each request's X-Service-Topic, in arrival order. */
  topics: string[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1:0 (path `/hooks`) that answers every request with 200. */
export async function startTopicReceiver(): Promise<TopicReceiver> {
  const topics: string[] = [];
  const server = createServer((req, res) => {
    topics.push(String(req.headers["x-service-topic"]));
    req.resume();
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    topics,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
