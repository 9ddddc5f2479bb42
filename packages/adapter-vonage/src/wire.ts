// The Vonage Messages API's bodies, as the Vonage Node SDK (`packages/messages`) names them;
// only the fields Tidings writes or reads.

/** A text message of `POST /v1/messages` on Viber (`viber_service`) or SMS. */
export interface VonageMessageRequest {
  channel: "viber_service" | "sms";
  message_type: "text";
  to: string;
  from: string;
  text: string;
  client_ref: string;
  webhook_url: string;
  viber_service?: { category: "transaction" | "promotion"; ttl: number };
  /**
   * SMS only: how long, in seconds, Vonage attempts delivery (72 hours when absent); the SDK's
   * `SMS` class sends it at the top level, beside `text`.
   */
  ttl?: number;
}

/** The 202 answer: the message's id. */
export interface VonageMessageAccepted {
  message_uuid?: string | undefined;
}

/** An error answer (RFC 7807-like). */
export interface VonageError {
  type?: string | undefined;
  /** A string in API answers; a number (the code) in status webhooks. */
  title?: string | number | undefined;
  detail?: string | undefined;
  instance?: string | undefined;
  invalid_parameters?: Array<{ name?: string; reason?: string }> | undefined;
}

/** A status webhook's JSON body. */
export interface VonageStatus {
  message_uuid?: string | undefined;
  to?: string | undefined;
  from?: string | undefined;
  timestamp?: string | undefined;
  status?: string | undefined;
  channel?: string | undefined;
  client_ref?: string | undefined;
  error?: VonageError | undefined;
  /** What the message cost: `price` a decimal string (`"0.0333"`), `currency` ISO 4217. */
  usage?: { price?: unknown; currency?: unknown } | undefined;
}
