import type { IncomingMessage, ServerResponse } from "node:http";
import { type EventBody, verifyWebhook } from "@tidings/core";

/** One verified, first-seen webhook event. */
export interface ReceivedEvent {
  deliveryId: string;
  topic: string;
  attempt: number;
  body: EventBody;
}

export interface WebhookReceiverOptions {
  /** The key's `webhook_signing_secret`, or the subscription's `signing_secret`. */
  secret: string;
  /** Handles an event once; throwing answers 500, so Tidings retries it later. */
  onEvent(event: ReceivedEvent): void | Promise<void>;
  /** How many delivery ids to remember for deduplication (10 000). */
  remember?: number | undefined;
}

const readRawBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const answer = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};

/**
 * A node:http listener that receives Tidings webhooks: it verifies the signature over the raw
 * bytes (never over re-serialized JSON), then handles each delivery id once. Tidings retries a
 * delivery with the same `X-Service-Delivery-Id` until it gets a 2xx, so a retry of an event
 * already handled is acknowledged without handling it again.
 */
export function createWebhookReceiver(options: WebhookReceiverOptions) {
  const remember = options.remember ?? 10_000;
  // Insertion-ordered, so the oldest id is dropped first when the set is full.
  const handled = new Set<string>();

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") return answer(res, 405, { error: "POST only" });
    const raw = await readRawBody(req);
    const verification = verifyWebhook(raw, req.headers, options.secret);
    if (verification.isErr()) {
      const { reason, message } = verification.error;
      return answer(res, 401, { error: reason, message });
    }
    const verified = verification.value;
    if (handled.has(verified.deliveryId)) {
      return answer(res, 200, { received: true, duplicate: true });
    }
    const body = JSON.parse(raw.toString("utf8")) as EventBody;
    try {
      await options.onEvent({
        deliveryId: verified.deliveryId,
        topic: verified.topic,
        attempt: Number(req.headers["x-service-retry-attempt"] ?? 0),
        body,
      });
    } catch (error) {
      return answer(res, 500, { error: "handler_failed", message: String(error) });
    }
    handled.add(verified.deliveryId);
    if (handled.size > remember) handled.delete(handled.values().next().value as string);
    return answer(res, 200, { received: true, duplicate: false });
  };
}
