// Test support: what Infobip forwards to an inbound URL, written from Infobip's own material:
// the SMS API's "Receive inbound SMS messages" webhook (format MO_JSON_2) as infobip-api-java-
// client models it (`SmsInboundMessageResult` of `SmsInboundMessage`: messageId, from, to, text,
// cleanText, keyword, receivedAt `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, smsCount, price, callbackData;
// SmsApiTest's sample), and the Viber API's "Receive inbound Viber messages" webhook
// (`ViberWebhookInboundReportResponse` of `ViberInboundMessageViberInboundContent`: sender, to,
// integrationType VIBER, receivedAt, messageId, pairedMessageId, callbackData, message `{ type:
// TEXT, text, trackingData }` or `{ type: FILE, url, fileName }`, price; ViberApiTest's sample).
// Both come as `{ results: [...], messageCount, pendingMessageCount }`, several messages at once
// when Infobip has them. Infobip signs neither: the URL's token is the only proof.
import { randomInt } from "node:crypto";

type Json = Record<string, unknown>;

const messageId = () => String(randomInt(1e9, 1e10 - 1)) + String(randomInt(1e8, 1e9 - 1));

const at = (date: Date) => date.toISOString().replace("Z", "+0000");

/** One inbound SMS as Infobip forwards it. */
export function infobipInboundSms(message: {
  from: string;
  to: string;
  text: string;
  messageId?: string | undefined;
  /** A keyword configured on the number that the text starts with. */
  keyword?: string | undefined;
  receivedAt?: Date | undefined;
}): Json {
  const keyword = message.keyword;
  const clean =
    keyword !== undefined && message.text.toUpperCase().startsWith(keyword.toUpperCase())
      ? message.text.slice(keyword.length).trim()
      : message.text;
  return {
    messageId: message.messageId ?? messageId(),
    from: message.from,
    to: message.to,
    text: message.text,
    cleanText: clean,
    keyword: keyword ?? "",
    receivedAt: at(message.receivedAt ?? new Date()),
    smsCount: 1,
    price: { pricePerMessage: 0, currency: "EUR" },
    callbackData: "",
  };
}

/** One inbound Viber message as Infobip forwards it: a text, or a file when `file` is given. */
export function infobipInboundViber(message: {
  sender: string;
  to: string;
  text?: string | undefined;
  file?: { url: string; fileName: string } | undefined;
  messageId?: string | undefined;
  receivedAt?: Date | undefined;
}): Json {
  return {
    sender: message.sender,
    to: message.to,
    integrationType: "VIBER",
    receivedAt: at(message.receivedAt ?? new Date()),
    messageId: message.messageId ?? messageId(),
    pairedMessageId: null,
    callbackData: null,
    message:
      message.file === undefined
        ? { type: "TEXT", text: message.text ?? "" }
        : { type: "FILE", ...message.file },
    price: { pricePerMessage: 0, currency: "EUR" },
  };
}

/** The body Infobip POSTs: the messages it has, and how many more are waiting. */
export const infobipInboundBody = (results: Json[]): Json => ({
  results,
  messageCount: results.length,
  pendingMessageCount: 0,
});

/** POSTs `results` to `url` (which ends with the inbound token) as Infobip does. */
export async function postInfobipInbound(
  url: string,
  results: Json[],
  options: { method?: string | undefined; body?: string | undefined } = {},
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: options.method ?? "POST",
    headers: { "content-type": "application/json" },
    body: options.body ?? JSON.stringify(infobipInboundBody(results)),
  });
  return { status: response.status, body: await response.text() };
}
