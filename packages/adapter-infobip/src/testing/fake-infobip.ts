// Test support: a loopback fake of Infobip's Viber (`/viber/2/messages`) and SMS
// (`/sms/3/messages`) APIs, written from Infobip's OpenAPI documents. It checks what Infobip
// checks (`Authorization: App <key>`, JSON, the fields Tidings sends and their limits), answers
// as Infobip does (200 with a PENDING_ACCEPTED status, or its `ApiError`), and posts delivery and
// seen reports, one or several per request, to the URLs each message gave. A `messageId` it has
// seen is refused (REJECTED_DUPLICATE_MESSAGE_ID) only when the fake plays an account with
// Infobip's opt-in idempotent sending; otherwise it is a second message, as on a normal account.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseUrl } from "@tidings/core";

/** What the fake answers a send with, instead of accepting it. */
export type FakeInfobipAnswer =
  | "accept"
  | "rejected_destination"
  | "invalid_request"
  | "unauthorized"
  | "rate_limited"
  | "server_error"
  /** Keeps the message, then answers 500: the send got through but its answer says not. */
  | "server_error_after_taking"
  /** Keeps the message, then drops the connection without an answer. */
  | "drop_after_taking"
  | "hang";

/** One send the fake received. */
export interface ReceivedInfobipSend {
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: Record<string, unknown>;
  /** Whether the fake kept the message (a later report may name it). */
  accepted: boolean;
  /** Whether the message will reach the handset: accepted and not a refused duplicate. */
  delivered: boolean;
}

export interface FakeInfobipOptions {
  apiKey: string;
  /**
   * The key has send scopes only (no `account-management:manage`): it sends, and reading the
   * balance answers 403, as Infobip answers a key without the scope.
   */
  sendOnly?: boolean | undefined;
  /** The `Retry-After` of a `rate_limited` answer, in seconds (default 1). */
  retryAfterSeconds?: number | undefined;
  /**
   * Plays an account with Infobip's opt-in idempotent sending: a `messageId` seen before is
   * refused as REJECTED_DUPLICATE_MESSAGE_ID, in the answer (`"answer"`, the default when on) or
   * in a later delivery report (`"report"`, "during processing": the test posts it with
   * `deliver`, status name REJECTED_DUPLICATE_MESSAGE_ID). Off (the default, as on most
   * accounts), a repeated `messageId` is simply another message.
   */
  idempotent?: "answer" | "report" | undefined;
}

/** A delivery report's status and error, as Infobip writes them. */
export interface FakeReportStatus {
  groupName: "PENDING" | "DELIVERED" | "UNDELIVERABLE" | "EXPIRED" | "REJECTED";
  name?: string | undefined;
  error?: { id: number; name: string; description?: string } | undefined;
  /** What the report says the message cost (Infobip's `price`); absent: none. */
  price?: { pricePerMessage: number; currency: string } | undefined;
}

export interface FakeInfobip {
  readonly url: string;
  readonly sends: readonly ReceivedInfobipSend[];
  answerNext(...answers: FakeInfobipAnswer[]): void;
  /** Posts delivery reports of accepted messages (several: one request) to the first's URL. */
  deliver(
    reports: Array<{ messageId: string } & FakeReportStatus>,
    options?: { url?: string },
  ): Promise<{ status: number; body: string }>;
  /** Posts a Viber seen report of an accepted message. */
  seen(messageId: string, options?: { url?: string }): Promise<{ status: number; body: string }>;
  /** The delivery and seen URLs an accepted message gave. */
  urlsOf(messageId: string): { delivery: string; seen: string | null };
  close(): Promise<void>;
}

const STATUS_IDS: Record<string, { groupId: number; id: number; name: string }> = {
  PENDING: { groupId: 1, id: 26, name: "PENDING_ACCEPTED" },
  UNDELIVERABLE: { groupId: 2, id: 9, name: "UNDELIVERABLE_NOT_DELIVERED" },
  DELIVERED: { groupId: 3, id: 5, name: "DELIVERED_TO_HANDSET" },
  EXPIRED: { groupId: 4, id: 15, name: "EXPIRED_EXPIRED" },
  REJECTED: { groupId: 5, id: 52, name: "REJECTED_DESTINATION" },
};

const apiError = (
  res: ServerResponse,
  status: number,
  errorCode: string,
  description: string,
  violations: Array<{ property: string; violation: string }> = [],
) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      errorCode,
      description,
      action: "Check the request.",
      violations,
      resources: [],
    }),
  );
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every violation of one message of a send, as Infobip would list them. */
function violationsOf(
  message: unknown,
  viber: boolean,
): Array<{ property: string; violation: string }> {
  const found: Array<{ property: string; violation: string }> = [];
  const at = (property: string, violation: string) =>
    found.push({ property: `messages[0].${property}`, violation });
  if (!isObject(message)) return [{ property: "messages[0]", violation: "must be an object" }];
  if (typeof message.sender !== "string" || message.sender === "")
    at("sender", "must not be blank");
  const destinations = message.destinations;
  if (!Array.isArray(destinations) || destinations.length === 0)
    at("destinations", "must not be empty");
  for (const [i, d] of (Array.isArray(destinations) ? destinations : []).entries()) {
    if (!isObject(d) || typeof d.to !== "string" || !/^[0-9]{6,15}$/.test(d.to))
      at(`destinations[${i}].to`, "must be a phone number in international format, digits only");
    if (
      isObject(d) &&
      d.messageId !== undefined &&
      (typeof d.messageId !== "string" || d.messageId.length > 200)
    )
      at(`destinations[${i}].messageId`, "must be at most 200 characters");
  }
  const content = message.content;
  if (!isObject(content) || typeof content.text !== "string" || content.text === "")
    at("content.text", "must not be blank");
  else if (viber && (content.type !== "TEXT" || [...content.text].length > 1000))
    at("content", "must be TEXT of at most 1000 characters");
  else if (!viber && "type" in content) at("content.type", "is not a field of SMS content");
  const options = isObject(message.options) ? message.options : {};
  const validity = options.validityPeriod;
  if (
    validity !== undefined &&
    (!isObject(validity) ||
      !Number.isInteger(validity.amount) ||
      (validity.amount as number) < 1 ||
      !["SECONDS", "MINUTES", "HOURS"].includes(String(validity.timeUnit ?? "MINUTES")))
  )
    at("options.validityPeriod", "must be { amount, timeUnit }");
  if (
    viber &&
    options.label !== undefined &&
    !["TRANSACTIONAL", "PROMOTIONAL"].includes(String(options.label))
  )
    at("options.label", "must be TRANSACTIONAL or PROMOTIONAL");
  if (options.smsFailover !== undefined && !viber)
    at("options.smsFailover", "is not a field of SMS options");
  const webhooks = isObject(message.webhooks) ? message.webhooks : {};
  const delivery = isObject(webhooks.delivery) ? webhooks.delivery.url : undefined;
  if (delivery !== undefined && (typeof delivery !== "string" || parseUrl(delivery) === null))
    at("webhooks.delivery.url", "must be a URL");
  if (!viber && webhooks.seen !== undefined) at("webhooks.seen", "is not a field of SMS webhooks");
  return found;
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeInfobip(options: FakeInfobipOptions): Promise<FakeInfobip> {
  const sends: ReceivedInfobipSend[] = [];
  const answers: FakeInfobipAnswer[] = [];
  const kept = new Map<
    string,
    { delivery: string; seen: string | null; to: string; sender: string }
  >();
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const path = req.url ?? "";
      if (req.method === "GET" && path === "/account/1/balance") {
        if (req.headers.authorization !== `App ${options.apiKey}`) {
          return apiError(res, 401, "E401", "Invalid login details");
        }
        if (options.sendOnly) return apiError(res, 403, "E403", "Forbidden");
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ balance: 42.5, currency: "EUR" }));
      }
      if (req.method !== "POST" || (path !== "/viber/2/messages" && path !== "/sms/3/messages")) {
        return apiError(res, 404, "E404", "Not found.");
      }
      let body: Json = {};
      try {
        body = JSON.parse(text) as Json;
      } catch {
        // Checked below as a missing messages array.
      }
      const received: ReceivedInfobipSend = {
        path,
        authorization: req.headers.authorization ?? null,
        contentType: req.headers["content-type"] ?? null,
        body,
        accepted: false,
        delivered: false,
      };
      sends.push(received);
      const answer = answers.shift() ?? "accept";
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      if (received.authorization !== `App ${options.apiKey}` || answer === "unauthorized") {
        return apiError(res, 401, "E401", "Invalid login details");
      }
      if (answer === "rate_limited") {
        res.setHeader("retry-after", String(options.retryAfterSeconds ?? 1));
        return apiError(res, 429, "E429", "Too many requests");
      }
      if (answer === "server_error") return apiError(res, 500, "E500", "Something went wrong.");
      if (!received.contentType?.startsWith("application/json")) {
        return apiError(res, 415, "E415", "Unsupported media type.");
      }
      const messages = Array.isArray(body.messages) ? body.messages : [];
      const violations =
        messages.length === 0
          ? [{ property: "messages", violation: "must not be empty" }]
          : messages.flatMap((m) => violationsOf(m, path.startsWith("/viber")));
      if (violations.length > 0 || answer === "invalid_request") {
        return apiError(res, 400, "E400", "Request cannot be processed.", violations);
      }
      const answered = messages.map((m) => {
        const message = m as Json & { destinations: Json[]; webhooks?: Json; sender: string };
        const destination = message.destinations[0] as { to: string; messageId?: string };
        const messageId = destination.messageId ?? randomUUID();
        const repeated = kept.has(messageId);
        const duplicate = repeated && options.idempotent === "answer";
        const rejected = answer === "rejected_destination";
        const status = duplicate
          ? {
              groupId: 5,
              groupName: "REJECTED",
              id: 23,
              name: "REJECTED_DUPLICATE_MESSAGE_ID",
              description: "Duplicate message id",
            }
          : rejected
            ? {
                groupId: 5,
                groupName: "REJECTED",
                id: 52,
                name: "REJECTED_DESTINATION",
                description: "Invalid destination",
              }
            : {
                groupId: 1,
                groupName: "PENDING",
                id: 26,
                name: "PENDING_ACCEPTED",
                description: "Message sent to next instance",
              };
        if (!duplicate && !rejected) {
          const webhooks = isObject(message.webhooks) ? message.webhooks : {};
          received.delivered = !(repeated && options.idempotent === "report");
          kept.set(messageId, {
            delivery: String((webhooks.delivery as Json | undefined)?.url ?? ""),
            seen: isObject(webhooks.seen) ? String(webhooks.seen.url) : null,
            to: destination.to,
            sender: message.sender,
          });
          received.accepted = true;
        }
        return { messageId, status, destination: destination.to };
      });
      if (answer === "server_error_after_taking") {
        return apiError(res, 500, "E500", "Something went wrong.");
      }
      if (answer === "drop_after_taking") {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ bulkId: randomUUID(), messages: answered }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const keptOf = (messageId: string) => {
    const message = kept.get(messageId);
    if (message === undefined) throw new Error(`fake infobip: no accepted message ${messageId}`);
    return message;
  };
  const post = async (url: string, body: unknown) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  };

  return {
    url: `http://127.0.0.1:${port}`,
    sends,
    answerNext(...next) {
      answers.push(...next);
    },
    urlsOf: (messageId) => {
      const { delivery, seen } = keptOf(messageId);
      return { delivery, seen };
    },
    deliver(reports, postOptions = {}) {
      const first = reports[0];
      if (first === undefined) throw new Error("fake infobip: no report to deliver");
      const url = postOptions.url ?? keptOf(first.messageId).delivery;
      const results = reports.map((report) => {
        const message = kept.get(report.messageId);
        const status = STATUS_IDS[report.groupName]!;
        return {
          bulkId: randomUUID(),
          messageId: report.messageId,
          to: message?.to ?? "",
          sender: message?.sender ?? "",
          sentAt: "2026-01-01T00:00:00.000+0000",
          doneAt: "2026-01-01T00:00:05.000+0000",
          messageCount: 1,
          ...(report.price === undefined ? {} : { price: report.price }),
          status: {
            groupId: status.groupId,
            groupName: report.groupName,
            id: status.id,
            name: report.name ?? status.name,
            description: report.name ?? status.name,
          },
          error: report.error
            ? {
                groupId: 1,
                groupName: "HANDSET_ERRORS",
                permanent: true,
                description: report.error.name,
                ...report.error,
              }
            : {
                groupId: 0,
                groupName: "OK",
                id: 0,
                name: "NO_ERROR",
                description: "No Error",
                permanent: false,
              },
        };
      });
      return post(url, { results });
    },
    seen(messageId, postOptions = {}) {
      const message = keptOf(messageId);
      const url = postOptions.url ?? message.seen;
      if (url === null) throw new Error(`fake infobip: message ${messageId} gave no seen URL`);
      return post(url, {
        results: [
          {
            messageId,
            from: message.to,
            to: message.sender,
            sentAt: "2026-01-01T00:00:00.000+0000",
            seenAt: "2026-01-01T00:00:10.000+0000",
          },
        ],
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
