// Test support: the Messages API's inbound webhook, as vonage-java-sdk models it
// (`messages.InboundMessage` and `InboundMessageTest`: channel, message_uuid, to, from,
// timestamp ISO 8601, message_type, text, client_ref, usage `{ currency, price }` as strings,
// sms `{ num_messages, total_count, keyword }`, origin `{ network_code }`; `Channel` names Viber
// `viber_service`), numbers without `+`. It is POSTed to the application's inbound URL, signed
// as Vonage's "Signed webhooks" page (developer.vonage.com/en/messages/concepts/signed-webhooks)
// says of the Messages API's webhooks: `Authorization: Bearer` an HS256 JWT made with the
// signature secret, carrying api_key, iat, jti and payload_hash (the body's hex SHA-256).
import { createHash, randomUUID } from "node:crypto";
import { SignJWT } from "jose";

type Json = Record<string, unknown>;

/** One inbound text on `sms` or `viber_service` as Vonage posts it. */
export function vonageInboundText(message: {
  channel: "sms" | "viber_service";
  from: string;
  to: string;
  text: string;
  messageUuid?: string | undefined;
  timestamp?: Date | undefined;
}): Json {
  const common = {
    channel: message.channel,
    message_uuid: message.messageUuid ?? randomUUID(),
    to: message.to,
    from: message.from,
    timestamp: (message.timestamp ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z"),
    message_type: "text",
    text: message.text,
  };
  if (message.channel === "viber_service") return common;
  return {
    ...common,
    usage: { currency: "EUR", price: "0.0000" },
    sms: {
      num_messages: "1",
      total_count: "1",
      keyword: (message.text.trim().split(/\s+/, 1)[0] ?? "").toUpperCase(),
    },
    origin: { network_code: "23410" },
  };
}

export interface PostVonageInboundOptions {
  signatureSecret: string;
  apiKey: string;
  /** Replaces the token; `null` sends no `Authorization`. */
  signature?: string | null | undefined;
  /** Changes the body after signing. */
  tamper?: boolean | undefined;
  /** Moves `iat` by this many seconds (a stale token). */
  iatOffsetSeconds?: number | undefined;
  /** Sends this text as the body instead (signed as it is). */
  rawBody?: string | undefined;
}

/** The `Authorization` token Vonage would send with `body`. */
export async function vonageWebhookToken(
  body: string,
  signatureSecret: string,
  apiKey: string,
  iatOffsetSeconds = 0,
): Promise<string> {
  return new SignJWT({
    api_key: apiKey,
    payload_hash: createHash("sha256").update(body).digest("hex"),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(Math.floor(Date.now() / 1000) + iatOffsetSeconds)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(signatureSecret));
}

/** The request Vonage would make: headers and body, signed unless told. */
export async function vonageInboundRequest(
  message: Json,
  options: PostVonageInboundOptions,
): Promise<{ headers: Record<string, string>; body: string }> {
  const body = options.rawBody ?? JSON.stringify(message);
  const signature =
    options.signature === undefined
      ? await vonageWebhookToken(
          body,
          options.signatureSecret,
          options.apiKey,
          options.iatOffsetSeconds,
        )
      : options.signature;
  return {
    headers: {
      "content-type": "application/json",
      ...(signature === null ? {} : { authorization: `Bearer ${signature}` }),
    },
    body: options.tamper ? body.replace(/"text":"/, '"text":"START ') : body,
  };
}

/** POSTs `message` to `url` as Vonage does; answers what the server said. */
export async function postVonageInbound(
  url: string,
  message: Json,
  options: PostVonageInboundOptions,
): Promise<{ status: number; body: string }> {
  const request = await vonageInboundRequest(message, options);
  const response = await fetch(url, { method: "POST", ...request });
  return { status: response.status, body: await response.text() };
}
