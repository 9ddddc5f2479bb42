// Test support: a loopback fake of the Vonage Messages API, written from the Vonage Node SDK. It
// checks what Vonage checks (a Bearer application JWT signed RS256 with the application's key
// and naming its application_id, JSON, the fields Tidings sends), answers as Vonage does (202
// with a message_uuid, or its RFC 7807 error body), and posts status webhooks to the
// `webhook_url` each message gave, signed as Vonage signs them: an HS256 JWT made by `jose` with
// the signature secret, carrying api_key, iat and the body's SHA-256.
import { createHash, createPublicKey, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseUrl } from "@tidings/core";
import { jwtVerify, SignJWT } from "jose";

export type FakeVonageAnswer =
  | "accept"
  | "invalid_number"
  | "unauthorized"
  | "rate_limited"
  | "server_error"
  | "hang"
  /** Cuts the connection after the request arrived, without an answer. */
  | "drop";

export interface ReceivedVonageSend {
  authorization: string | null;
  /** The JWT's claims, when it verified. */
  claims: Record<string, unknown> | null;
  contentType: string | null;
  body: Record<string, unknown>;
  messageUuid: string | null;
}

export interface FakeVonageOptions {
  applicationId: string;
  /** The application's private key (PEM); the fake verifies with its public half. */
  privateKey: string;
  signatureSecret: string;
  apiKey: string;
  /** The account's API secret, for the balance read. */
  apiSecret?: string | undefined;
  retryAfterSeconds?: number | undefined;
}

export interface FakeVonage {
  readonly url: string;
  readonly sends: readonly ReceivedVonageSend[];
  answerNext(...answers: FakeVonageAnswer[]): void;
  /**
   * Posts a status webhook of an accepted message to its `webhook_url`, signed unless told
   * (`signature: null` sends it unsigned, a string replaces the token); `tamper` changes the body
   * after signing.
   */
  status(
    messageUuid: string,
    status: string,
    extra?: Record<string, unknown>,
    options?: { signature?: string | null; tamper?: boolean; iatOffsetSeconds?: number },
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

const problem = (
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
) => {
  res.writeHead(status, { "content-type": "application/problem+json" });
  res.end(
    JSON.stringify({
      type: `https://developer.vonage.com/api-errors/messages#${code}`,
      title,
      detail,
      instance: randomUUID(),
    }),
  );
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** What is wrong with a message request, in Vonage's words, or `null`. */
function invalidOf(body: Record<string, unknown>): string | null {
  if (body.message_type !== "text") return "message_type must be text";
  if (typeof body.to !== "string" || !/^[1-9][0-9]{6,14}$/.test(body.to))
    return "to must be an E.164 number without +";
  if (typeof body.from !== "string" || body.from === "") return "from is required";
  if (/^(\+|00)/.test(body.from)) return "from must be a number without + or 00, or a name";
  if (typeof body.text !== "string" || body.text === "") return "text is required";
  if ([...body.text].length > 1000) return "text must be at most 1000 characters";
  if (typeof body.client_ref !== "string" || body.client_ref.length > 100)
    return "client_ref must be at most 100 characters";
  if (typeof body.webhook_url !== "string" || parseUrl(body.webhook_url) === null)
    return "webhook_url must be a URL";
  if (body.channel === "viber_service") {
    const viber = body.viber_service as { category?: unknown; ttl?: unknown } | undefined;
    if (!viber || !["transaction", "promotion"].includes(String(viber.category)))
      return "viber_service.category must be transaction or promotion";
    if (
      !Number.isInteger(viber.ttl) ||
      (viber.ttl as number) < 30 ||
      (viber.ttl as number) > 259_200
    )
      return "viber_service.ttl must be 30 to 259200";
    if (!/^[0-9]+$/.test(String(body.from))) return "from must be the Viber service id";
    return null;
  }
  if (body.channel !== "sms") return "channel must be sms or viber_service";
  if (
    body.ttl !== undefined &&
    (!Number.isInteger(body.ttl) || (body.ttl as number) < 20 || (body.ttl as number) > 604_800)
  )
    return "ttl must be 20 to 604800 seconds";
  return null;
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeVonage(options: FakeVonageOptions): Promise<FakeVonage> {
  const publicKey = createPublicKey(options.privateKey);
  const sends: ReceivedVonageSend[] = [];
  const answers: FakeVonageAnswer[] = [];
  const accepted = new Map<string, Record<string, unknown>>();
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      if (req.method === "GET" && req.url?.startsWith("/account/get-balance?")) {
        const query = new URLSearchParams(req.url.slice("/account/get-balance?".length));
        const known =
          query.get("api_key") === options.apiKey &&
          options.apiSecret !== undefined &&
          query.get("api_secret") === options.apiSecret;
        if (!known) return problem(res, 401, "1010", "Unauthorized", "Bad credentials.");
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ value: 10.28, autoReload: false }));
      }
      if (req.method !== "POST" || req.url !== "/v1/messages") {
        return problem(res, 404, "1000", "Not Found", "No such resource.");
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Refused below as invalid.
      }
      const authorization = req.headers.authorization ?? null;
      let claims: Record<string, unknown> | null = null;
      const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
      if (token) {
        try {
          claims = (await jwtVerify(token, publicKey, { algorithms: ["RS256"] })).payload;
        } catch {
          claims = null;
        }
      }
      const received: ReceivedVonageSend = {
        authorization,
        claims,
        contentType: req.headers["content-type"] ?? null,
        body,
        messageUuid: null,
      };
      sends.push(received);
      const answer = answers.shift() ?? "accept";
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      if (claims?.application_id !== options.applicationId || answer === "unauthorized") {
        return problem(
          res,
          401,
          "1010",
          "Unauthorized",
          "You did not provide correct credentials.",
        );
      }
      if (answer === "rate_limited") {
        res.setHeader("retry-after", String(options.retryAfterSeconds ?? 1));
        return problem(res, 429, "1020", "Too Many Requests", "Rate limit hit.");
      }
      // 1030 is "Internal error" in Vonage's Messages API error list (1050 is "Number barred").
      if (answer === "server_error")
        return problem(res, 500, "1030", "Internal Error", "Something went wrong.");
      if (!received.contentType?.startsWith("application/json")) {
        return problem(res, 415, "1030", "Unsupported Media Type", "Send JSON.");
      }
      const invalid =
        answer === "invalid_number" ? "The value of parameter to is invalid." : invalidOf(body);
      if (invalid !== null) return problem(res, 422, "1150", "Invalid params", invalid);
      const uuid = randomUUID();
      received.messageUuid = uuid;
      accepted.set(uuid, body);
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ message_uuid: uuid }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const secret = new TextEncoder().encode(options.signatureSecret);

  return {
    url: `http://127.0.0.1:${port}`,
    sends,
    answerNext(...next) {
      answers.push(...next);
    },
    async status(messageUuid, status, extra = {}, postOptions = {}) {
      const message = accepted.get(messageUuid);
      if (message === undefined) throw new Error(`fake vonage: no accepted message ${messageUuid}`);
      const body = JSON.stringify({
        message_uuid: messageUuid,
        to: message.to,
        from: message.from,
        timestamp: new Date().toISOString(),
        status,
        channel: message.channel === "viber_service" ? "viber_service" : "sms",
        client_ref: message.client_ref,
        ...extra,
      });
      const iat = Math.floor(Date.now() / 1000) + (postOptions.iatOffsetSeconds ?? 0);
      const signature =
        postOptions.signature === undefined
          ? await new SignJWT({
              api_key: options.apiKey,
              payload_hash: createHash("sha256").update(body).digest("hex"),
            })
              .setProtectedHeader({ alg: "HS256", typ: "JWT" })
              .setIssuedAt(iat)
              .setJti(randomUUID())
              .sign(secret)
          : postOptions.signature;
      const response = await fetch(String(message.webhook_url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(signature === null ? {} : { authorization: `Bearer ${signature}` }),
        },
        body: postOptions.tamper
          ? body.replace(status, status === "delivered" ? "rejected" : "delivered")
          : body,
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
