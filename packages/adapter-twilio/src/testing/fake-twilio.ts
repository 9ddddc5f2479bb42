// Test support: a loopback fake of Twilio's Messages API, written from Twilio's API v2010 OpenAPI
// document and twilio-node. It checks what Twilio checks (Basic auth, the form content type,
// To, From or MessagingServiceSid, Body, ValidityPeriod, StatusCallback), answers as Twilio
// does, and posts status callbacks to the URL each send gave, signed as Twilio signs them.
// Tidings' own tests pass the official `twilio` package's `getExpectedTwilioSignature` as
// `sign`, so its verification is checked against code it did not write.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseUrl } from "@tidings/core";
import { twilioSignature } from "../signature.js";

/** What the fake answers a send with, instead of accepting it. */
export type FakeTwilioAnswer =
  | "accept"
  | "invalid_number"
  | "opted_out"
  | "unauthorized"
  | "rate_limited"
  | "server_error"
  /** 400 with 21611: the sender's queue is full (temporary; nothing was taken). */
  | "queue_full"
  | "hang"
  | "drop";

/** One send the fake received, with the form as sent. */
export interface ReceivedSend {
  sid: string | null;
  authorization: string | null;
  contentType: string | null;
  form: Record<string, string>;
}

export interface FakeTwilioOptions {
  accountSid: string;
  authToken: string;
  apiKeySid?: string | undefined;
  apiKeySecret?: string | undefined;
  /** The `Retry-After` of a `rate_limited` answer, in seconds (default 1). */
  retryAfterSeconds?: number | undefined;
  /**
   * Computes `X-Twilio-Signature` (default: Tidings' own); pass twilio-node's
   * `getExpectedTwilioSignature` to check Tidings against the official one.
   */
  sign?: ((authToken: string, url: string, params: Record<string, string>) => string) | undefined;
  /**
   * The numbers of the Messaging Service's pool: a send with `MessagingServiceSid` goes out from
   * the next one in turn, which its status callbacks give as `From` (its answer gives no
   * sender: Twilio picks the number after it accepted the message). Default `+15005550006`.
   */
  messagingServicePool?: readonly string[] | undefined;
}

export interface FakeTwilio {
  /** The origin to pass as the provider's `apiUrl`. */
  readonly url: string;
  /** Every send received, in order, accepted or not. */
  readonly sends: readonly ReceivedSend[];
  /** The next sends' answers, in order; once they are used up, sends are accepted. */
  answerNext(...answers: FakeTwilioAnswer[]): void;
  /**
   * Posts a status callback for an accepted send, signed as Twilio signs it, to the
   * `StatusCallback` it gave; `fields` adds or overrides form fields. Answers what Tidings said.
   */
  callback(
    sid: string,
    status: string,
    fields?: Record<string, string>,
    options?: { signature?: string | null; url?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: string }>;
  /**
   * Sets what the Message resource (`GET …/Messages/{sid}.json`) says an accepted send cost:
   * Twilio writes a charge negative, e.g. `"-0.00750"`; `null` (the default) until it knows.
   */
  setPrice(sid: string, price: string | null, unit?: string): void;
  /** The sids of every Message resource read, in order. */
  readonly messageReads: readonly string[];
  close(): Promise<void>;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;

const sendJson = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

const restError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, {
    code,
    message,
    more_info: `https://www.twilio.com/docs/errors/${code}`,
    status,
  });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeTwilio(options: FakeTwilioOptions): Promise<FakeTwilio> {
  const sends: ReceivedSend[] = [];
  const answers: FakeTwilioAnswer[] = [];
  const accepted = new Map<string, Record<string, string>>();
  const prices = new Map<string, { price: string | null; unit: string }>();
  const messageReads: string[] = [];
  const pool = options.messagingServicePool ?? ["+15005550006"];
  let pooled = 0;
  const hanging = new Set<ServerResponse>();
  const accepts = [`${options.accountSid}:${options.authToken}`];
  if (options.apiKeySid) accepts.push(`${options.apiKeySid}:${options.apiKeySecret ?? ""}`);
  const basics = accepts.map((pair) => `Basic ${Buffer.from(pair).toString("base64")}`);

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = `/2010-04-01/Accounts/${options.accountSid}/Messages.json`;
      if (req.method === "GET" && req.url === `/2010-04-01/Accounts/${options.accountSid}.json`) {
        // A Standard API key may use the account's resources, but not read the account itself.
        if (req.headers.authorization !== basics[0]) {
          return restError(res, 401, 20003, "Authenticate");
        }
        return sendJson(res, 200, { sid: options.accountSid, status: "active", type: "Full" });
      }
      if (req.method === "GET" && req.url?.startsWith(`${path}?`)) {
        if (!basics.includes(req.headers.authorization ?? "")) {
          return restError(res, 401, 20003, "Authenticate");
        }
        const pageSize = Number(new URLSearchParams(req.url.split("?")[1]).get("PageSize") ?? 50);
        return sendJson(res, 200, {
          messages: [...accepted.keys()].slice(0, pageSize).map((sid) => ({ sid })),
          page: 0,
          page_size: pageSize,
        });
      }
      const one = new RegExp(`^${path.slice(0, -".json".length)}/(SM[0-9a-f]{32})\\.json$`).exec(
        req.url ?? "",
      );
      if (req.method === "GET" && one !== null) {
        if (!basics.includes(req.headers.authorization ?? "")) {
          return restError(res, 401, 20003, "Authenticate");
        }
        const sid = one[1] ?? "";
        const form = accepted.get(sid);
        if (form === undefined)
          return restError(res, 404, 20404, "The requested resource was not found");
        messageReads.push(sid);
        const price = prices.get(sid) ?? { price: null, unit: "USD" };
        return sendJson(res, 200, {
          sid,
          account_sid: options.accountSid,
          to: form.To,
          from: form.From ?? null,
          status: "delivered",
          price: price.price,
          price_unit: price.unit,
          uri: `/2010-04-01/Accounts/${options.accountSid}/Messages/${sid}.json`,
        });
      }
      if (req.method !== "POST" || req.url !== path) {
        return restError(res, 404, 20404, "The requested resource was not found");
      }
      const form = Object.fromEntries(new URLSearchParams(body));
      const received: ReceivedSend = {
        sid: null,
        authorization: req.headers.authorization ?? null,
        contentType: req.headers["content-type"] ?? null,
        form,
      };
      sends.push(received);
      const answer = answers.shift() ?? "accept";
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      if (!basics.includes(received.authorization ?? "") || answer === "unauthorized") {
        return restError(res, 401, 20003, "Authenticate");
      }
      if (!received.contentType?.startsWith("application/x-www-form-urlencoded")) {
        return restError(res, 400, 20001, "Bad request");
      }
      if (answer === "rate_limited") {
        res.setHeader("retry-after", String(options.retryAfterSeconds ?? 1));
        return restError(res, 429, 20429, "Too Many Requests");
      }
      if (answer === "server_error") return restError(res, 500, 20500, "Internal Server Error");
      if (answer === "queue_full") {
        return restError(
          res,
          400,
          21611,
          "This 'From' number has exceeded the maximum number of queued messages",
        );
      }
      if (!form.To) return restError(res, 400, 21604, "A 'To' phone number is required.");
      if (!E164.test(form.To) || answer === "invalid_number") {
        return restError(
          res,
          400,
          21211,
          `The 'To' number ${form.To} is not a valid phone number.`,
        );
      }
      if (answer === "opted_out") {
        return restError(res, 400, 21610, "Attempt to send to unsubscribed recipient");
      }
      if (!form.From && !form.MessagingServiceSid) {
        return restError(res, 400, 21603, "A 'From' phone number is required.");
      }
      if (!form.Body) return restError(res, 400, 21602, "Message body is required.");
      if ([...form.Body].length > 1600) {
        return restError(
          res,
          400,
          21617,
          "The concatenated message body exceeds the 1600 character limit.",
        );
      }
      const validity = Number(form.ValidityPeriod ?? "36000");
      if (!Number.isInteger(validity) || validity < 1 || validity > 36_000) {
        return restError(res, 400, 30045, "ValidityPeriod must be between 1 and 36000.");
      }
      if (form.StatusCallback !== undefined && parseUrl(form.StatusCallback) === null) {
        return restError(res, 400, 21609, "Invalid StatusCallback URL.");
      }
      const sid = `SM${randomBytes(16).toString("hex")}`;
      received.sid = sid;
      // A Messaging Service picks the sender from its pool; callbacks then give it as `From`.
      const sentFrom = form.MessagingServiceSid ? pool[pooled++ % pool.length] : form.From;
      accepted.set(sid, { ...form, ...(sentFrom === undefined ? {} : { From: sentFrom }) });
      sendJson(res, 201, {
        sid,
        account_sid: options.accountSid,
        messaging_service_sid: form.MessagingServiceSid ?? null,
        to: form.To,
        from: form.From ?? null,
        body: form.Body,
        status: form.MessagingServiceSid ? "accepted" : "queued",
        direction: "outbound-api",
        num_segments: "1",
        num_media: "0",
        error_code: null,
        error_message: null,
        api_version: "2010-04-01",
        uri: `/2010-04-01/Accounts/${options.accountSid}/Messages/${sid}.json`,
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    sends,
    messageReads,
    setPrice(sid, price, unit = "USD") {
      prices.set(sid, { price, unit });
    },
    answerNext(...next) {
      answers.push(...next);
    },
    async callback(sid, status, fields = {}, callbackOptions = {}) {
      const form = accepted.get(sid);
      if (form === undefined) throw new Error(`fake twilio: no accepted message ${sid}`);
      const url = callbackOptions.url ?? form.StatusCallback;
      if (!url) throw new Error(`fake twilio: message ${sid} gave no StatusCallback`);
      const params: Record<string, string> = {
        AccountSid: options.accountSid,
        ApiVersion: "2010-04-01",
        MessageSid: sid,
        SmsSid: sid,
        MessageStatus: status,
        SmsStatus: status,
        To: form.To ?? "",
        ...(form.From ? { From: form.From } : {}),
        ...(form.MessagingServiceSid ? { MessagingServiceSid: form.MessagingServiceSid } : {}),
        ...fields,
      };
      const signature =
        callbackOptions.signature === undefined
          ? (options.sign ?? twilioSignature)(options.authToken, url, params)
          : callbackOptions.signature;
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded; charset=utf-8",
          ...(signature === null ? {} : { "x-twilio-signature": signature }),
          ...callbackOptions.headers,
        },
        body: new URLSearchParams(params).toString(),
      });
      return { status: response.status, body: await response.text() };
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
