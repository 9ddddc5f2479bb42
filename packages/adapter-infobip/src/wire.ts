// Infobip's bodies as its Viber (`/viber/2/messages`) and SMS (`/sms/3/messages`) OpenAPI
// documents name them; only the fields Tidings writes or reads.

/** `{ amount, timeUnit }` of a validity period. */
export interface ValidityPeriod {
  amount: number;
  timeUnit: "SECONDS" | "MINUTES" | "HOURS";
}

/** One message of a `ViberRequest` or an SMS v3 request. */
export interface InfobipMessage {
  sender: string;
  destinations: Array<{ to: string; messageId: string }>;
  /** Viber: `{ type: "TEXT", text }`; SMS: `{ text }` (no `type`). */
  content: { type?: "TEXT"; text: string };
  options: { validityPeriod: ValidityPeriod; label?: "TRANSACTIONAL" | "PROMOTIONAL" };
  webhooks: {
    delivery: { url: string };
    seen?: { url: string };
    contentType: "application/json";
  };
}

/** The body of a send: one or more messages. */
export interface InfobipSendRequest {
  messages: InfobipMessage[];
}

/** `{ groupId, groupName, id, name, description }` of a message status. */
export interface InfobipStatus {
  groupId?: number | undefined;
  groupName?: string | undefined;
  id?: number | undefined;
  name?: string | undefined;
  description?: string | undefined;
}

/** The 200 answer to a send. */
export interface InfobipSendResponse {
  bulkId?: string | undefined;
  messages?: Array<{ messageId?: string; status?: InfobipStatus; destination?: string }>;
}

/** An error answer (`ApiError`). */
export interface InfobipApiError {
  errorCode?: string | undefined;
  description?: string | undefined;
  action?: string | undefined;
  violations?: Array<{ property?: string; violation?: string }> | undefined;
}

/** One delivery report of `{ results: [...] }` (Viber and SMS v3 share the shape). */
export interface InfobipDeliveryReport {
  messageId?: string | undefined;
  /** The sender the message went out from. */
  sender?: string | undefined;
  status?: InfobipStatus | undefined;
  error?: (InfobipStatus & { permanent?: boolean | undefined }) | undefined;
  /** What the message cost: `pricePerMessage` a number (`0.15`), `currency` ISO 4217. */
  price?: { pricePerMessage?: unknown; currency?: unknown } | undefined;
}

/** One Viber seen report of `{ results: [...] }`. */
export interface InfobipSeenReport {
  messageId?: string | undefined;
  seenAt?: string | undefined;
}
