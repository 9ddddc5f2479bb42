// Test support: a loopback fake of Telnyx Messaging v2, written from telnyx-node's types and
// Telnyx's API reference. It checks what Telnyx checks (a Bearer API key, JSON, `to` in E.164,
// a `from` or messaging profile, a `text` of at most 10 GSM-7 parts), answers as Telnyx does
// (200 `{ data: { id, to: [{ status: "queued" }], … } }`, or `{ errors: [{ code, title,
// detail }] }` with a string code), and posts webhooks (`message.sent`, `message.finalized`,
// `message.received`) signed as Telnyx signs them: Ed25519 over `{timestamp}|{raw body}`, in
// `telnyx-signature-ed25519` (base64) and `telnyx-timestamp` (Unix seconds).
import { generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseUrl } from "@tidings/core";

export type FakeTelnyxAnswer =
  | "accept"
  | "invalid_number"
  /** 40300: the recipient replied STOP to this sender. */
  | "opted_out"
  | "unauthorized"
  | "rate_limited"
  | "server_error"
  | "hang"
  /** Cuts the connection after the request arrived, without an answer. */
  | "drop";

export interface ReceivedTelnyxSend {
  authorization: string | null;
  contentType: string | null;
  body: Record<string, unknown>;
  /** The id Telnyx gave the message, once accepted. */
  id: string | null;
}

export interface FakeTelnyxOptions {
  apiKey: string;
  retryAfterSeconds?: number | undefined;
}

export interface SignedPostOptions {
  /** `null`: unsigned; a string: this signature instead of the right one. */
  signature?: string | null | undefined;
  /** Changes the body after signing. */
  tamper?: boolean | undefined;
  /** Added to the timestamp, in seconds (a stale webhook). */
  timestampOffsetSeconds?: number | undefined;
}

export interface FakeTelnyx {
  readonly url: string;
  /** The account's public key as Mission Control shows it: base64 of the raw 32 bytes. */
  readonly publicKey: string;
  readonly sends: readonly ReceivedTelnyxSend[];
  answerNext(...answers: FakeTelnyxAnswer[]): void;
  /**
   * Posts a status webhook of an accepted message (by Telnyx's id) to its `webhook_url`:
   * `message.sent` for `sent`, else `message.finalized`, with the recipient's `status`.
   */
  status(
    id: string,
    status: string,
    options?: SignedPostOptions & { errors?: unknown[] | undefined },
  ): Promise<{ status: number; body: string }>;
  /** Posts a `message.received` webhook to `url`, as Telnyx does to a profile's webhook URL. */
  inbound(
    url: string,
    message: { from: string; to: string; text: string; id?: string | undefined },
    options?: SignedPostOptions,
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

const errorAnswer = (
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      errors: [
        {
          code,
          title,
          detail,
          meta: { url: `https://developers.telnyx.com/docs/overview/errors/${code}` },
        },
      ],
    }),
  );
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** What is wrong with a send, as Telnyx's code and words, or `null`. */
function invalidOf(body: Record<string, unknown>): [string, string] | null {
  if (typeof body.to !== "string" || !/^\+[1-9][0-9]{6,14}$/.test(body.to))
    return ["40310", "Invalid 'to' address"];
  const from = typeof body.from === "string" && body.from !== "";
  if (!from && typeof body.messaging_profile_id !== "string")
    return ["40305", "Invalid 'from' address"];
  if (typeof body.text !== "string" || body.text === "") return ["40004", "Text is required"];
  if ([...body.text].length > 1530) return ["40302", "Message too large"];
  if (
    body.webhook_url !== undefined &&
    (typeof body.webhook_url !== "string" || parseUrl(body.webhook_url) === null)
  )
    return ["10015", "Invalid webhook_url"];
  return null;
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeTelnyx(options: FakeTelnyxOptions): Promise<FakeTelnyx> {
  const keys = generateKeyPairSync("ed25519");
  const publicKey = Buffer.from(
    String(keys.publicKey.export({ format: "jwk" }).x),
    "base64url",
  ).toString("base64");
  const sends: ReceivedTelnyxSend[] = [];
  const answers: FakeTelnyxAnswer[] = [];
  const accepted = new Map<string, Record<string, unknown>>();
  const hanging = new Set<ServerResponse>();
  const bearer = `Bearer ${options.apiKey}`;

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      if (req.method === "GET" && req.url === "/v2/balance") {
        if (req.headers.authorization !== bearer)
          return errorAnswer(res, 401, "10009", "Authentication failed", "The API key is invalid.");
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({
            data: {
              record_type: "balance",
              balance: "300.00",
              pending: "0.00",
              credit_limit: "0.00",
              available_credit: "300.00",
              currency: "USD",
            },
          }),
        );
      }
      if (req.method !== "POST" || req.url !== "/v2/messages") {
        return errorAnswer(res, 404, "10005", "Resource not found", "No such resource.");
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Refused below as invalid.
      }
      const received: ReceivedTelnyxSend = {
        authorization: req.headers.authorization ?? null,
        contentType: req.headers["content-type"] ?? null,
        body,
        id: null,
      };
      sends.push(received);
      const answer = answers.shift() ?? "accept";
      if (answer === "drop") return req.socket.destroy();
      if (answer === "hang") return void hanging.add(res);
      if (received.authorization !== bearer || answer === "unauthorized") {
        return errorAnswer(res, 401, "10009", "Authentication failed", "The API key is invalid.");
      }
      if (answer === "rate_limited") {
        res.setHeader("retry-after", String(options.retryAfterSeconds ?? 1));
        return errorAnswer(res, 429, "10011", "Too many requests", "Rate limit exceeded.");
      }
      if (answer === "server_error")
        return errorAnswer(res, 500, "10007", "Unexpected error", "An unexpected error occurred.");
      if (!received.contentType?.startsWith("application/json")) {
        return errorAnswer(res, 415, "10004", "Unsupported media type", "Send JSON.");
      }
      if (answer === "opted_out") {
        return errorAnswer(
          res,
          400,
          "40300",
          "Blocked due to STOP message",
          `Messages cannot be sent from '${String(body.from)}' to '${String(body.to)}' due to an existing block rule.`,
        );
      }
      const invalid =
        answer === "invalid_number"
          ? (["40310", "Invalid 'to' address"] as const)
          : invalidOf(body);
      if (invalid !== null)
        return errorAnswer(res, 400, invalid[0], invalid[1], "The request was refused.");
      const id = randomUUID();
      received.id = id;
      accepted.set(id, body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          data: {
            record_type: "message",
            direction: "outbound",
            id,
            type: "SMS",
            from: { phone_number: body.from, carrier: "Telnyx", line_type: "VoIP" },
            to: [{ phone_number: body.to, status: "queued", carrier: "", line_type: "Wireless" }],
            text: body.text,
            parts: 1,
            encoding: "GSM-7",
            errors: [],
            received_at: new Date().toISOString(),
          },
        }),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  async function post(
    url: string,
    payload: Record<string, unknown>,
    eventType: string,
    post: SignedPostOptions,
  ) {
    const body = JSON.stringify({
      data: {
        record_type: "event",
        id: randomUUID(),
        event_type: eventType,
        occurred_at: new Date().toISOString(),
        payload,
      },
      meta: { attempt: 1, delivered_to: url },
    });
    const timestamp = String(Math.floor(Date.now() / 1000) + (post.timestampOffsetSeconds ?? 0));
    const signature =
      post.signature === undefined
        ? sign(null, Buffer.from(`${timestamp}|${body}`), keys.privateKey).toString("base64")
        : post.signature;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "telnyx-timestamp": timestamp,
        ...(signature === null ? {} : { "telnyx-signature-ed25519": signature }),
      },
      body: post.tamper
        ? body
            .replace(/"status":"[a-z_]+"/, '"status":"delivery_failed"')
            .replace(/"text":"[^"]*"/, '"text":"STOP"')
        : body,
    });
    return { status: response.status, body: await response.text() };
  }

  return {
    url: `http://127.0.0.1:${port}`,
    publicKey,
    sends,
    answerNext(...next) {
      answers.push(...next);
    },
    async status(id, status, postOptions = {}) {
      const message = accepted.get(id);
      if (message === undefined) throw new Error(`fake telnyx: no accepted message ${id}`);
      const payload = {
        record_type: "message",
        direction: "outbound",
        id,
        type: "SMS",
        from: { phone_number: message.from },
        to: [{ phone_number: message.to, status }],
        text: message.text,
        errors: postOptions.errors ?? [],
      };
      return post(
        String(message.webhook_url),
        payload,
        status === "sent" ? "message.sent" : "message.finalized",
        postOptions,
      );
    },
    async inbound(url, message, postOptions = {}) {
      const payload = {
        record_type: "message",
        direction: "inbound",
        id: message.id ?? randomUUID(),
        type: "SMS",
        from: { phone_number: message.from, carrier: "T-Mobile USA", line_type: "Wireless" },
        to: [{ phone_number: message.to, status: "webhook_delivered" }],
        text: message.text,
        media: [],
        received_at: new Date().toISOString(),
      };
      return post(url, payload, "message.received", postOptions);
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
