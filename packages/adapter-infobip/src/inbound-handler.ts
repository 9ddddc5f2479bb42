import { createHash, timingSafeEqual } from "node:crypto";
import {
  bodyText,
  type CallbackLogger,
  type CallbackRequest,
  type CallbackResponse,
  emptyAnswer,
  type InboundReport,
  type InboundSink,
  isJsonObject,
  receiveInbound,
} from "@tidings/core";

/** The route label of the inbound endpoint: never the token. */
export const INFOBIP_INBOUND_ROUTE = "/providers/infobip/inbound/{token}";

/** The fewest characters an inbound token may have. */
export const MIN_INBOUND_TOKEN_LENGTH = 32;

/** The characters an inbound token may use: those a URL path carries as they are. */
const TOKEN_CHARACTERS = /^[A-Za-z0-9._~-]+$/;

/** Why a configured inbound token cannot be used, or `null` when it can. */
export function inboundTokenProblem(token: string): string | null {
  if (token.length < MIN_INBOUND_TOKEN_LENGTH) {
    return `has ${token.length} characters; at least ${MIN_INBOUND_TOKEN_LENGTH} are needed`;
  }
  if (!TOKEN_CHARACTERS.test(token)) {
    return "may hold only letters, digits and . _ ~ - (it goes in a URL path as it is)";
  }
  return null;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether `given` is one of `tokens`. Each is compared as a SHA-256 digest in constant time, and
 * every one is compared, so the time taken says neither how much of a token matched nor which.
 */
export function checkInboundToken(tokens: readonly Buffer[], given: string): boolean {
  const candidate = digest(given);
  let found = false;
  for (const token of tokens) {
    if (timingSafeEqual(token, candidate)) found = true;
  }
  return found;
}

/** The tokens as `checkInboundToken` compares them; throws on a token that cannot be used. */
export function inboundTokenDigests(tokens: readonly string[]): Buffer[] {
  return tokens.map((token, index) => {
    const problem = inboundTokenProblem(token);
    if (problem !== null) throw new Error(`Infobip inbound token ${index + 1} ${problem}.`);
    return digest(token);
  });
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;

/** Infobip's `yyyy-MM-dd'T'HH:mm:ss.SSSZ` (offset without a colon), or `null`. */
export function infobipTime(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const iso = value.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : new Date(time);
}

/** One result of an inbound body, read: a message to hand on, or one Tidings does not read. */
type Read = { report: InboundReport } | { skipped: string } | null;

/**
 * One result: an SMS (`from`, `to`, `text`, `messageId`, `receivedAt`; Infobip's SMS inbound
 * webhook) or a Viber message (`sender`, `to`, `integrationType` `VIBER`, `message` `{ type,
 * text }`; Infobip's Viber inbound webhook). A Viber file carries no text and is skipped.
 * `null` when it is neither.
 */
function readResult(result: unknown): Read {
  if (!isJsonObject(result)) return null;
  const messageId = text(result.messageId);
  const to = text(result.to);
  if (messageId === null || to === null) return null;
  const receivedAt = infobipTime(result.receivedAt);
  if (isJsonObject(result.message) || result.sender !== undefined) {
    const sender = text(result.sender);
    const message = result.message;
    if (sender === null || !isJsonObject(message) || typeof message.type !== "string") return null;
    if (message.type !== "TEXT") return { skipped: `viber ${message.type.toLowerCase()}` };
    if (typeof message.text !== "string") return null;
    return {
      report: {
        provider: "infobip",
        providerMessageId: messageId,
        channel: "viber",
        from: sender,
        to,
        text: message.text,
        receivedAt,
        providerKeywordClass: null,
      },
    };
  }
  const from = text(result.from);
  if (from === null || (result.text !== undefined && typeof result.text !== "string")) return null;
  return {
    report: {
      provider: "infobip",
      providerMessageId: messageId,
      channel: "sms",
      from,
      to,
      // The whole text: `cleanText` is it without the keyword configured on the number.
      text: typeof result.text === "string" ? result.text : "",
      receivedAt,
      // Infobip's `keyword` is one configured on the number, not a reading of what it means.
      providerKeywordClass: null,
    },
  };
}

/**
 * The results of an inbound body, every one read, or `null` when the body is not Infobip's
 * (not JSON, no `results` array, or a result that is neither an SMS nor a Viber message).
 */
export function infobipInboundResults(body: string): Array<Exclude<Read, null>> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed.results)) return null;
  const read: Array<Exclude<Read, null>> = [];
  for (const result of parsed.results) {
    const one = readResult(result);
    if (one === null) return null;
    read.push(one);
  }
  return read;
}

export interface InfobipInboundOptions {
  /** The configured tokens' digests (`inboundTokenDigests`); none: every request is 404. */
  tokens: readonly Buffer[];
  sink: InboundSink;
  logger: CallbackLogger;
}

/**
 * Infobip's inbound SMS and Viber messages, forwarded to `POST /inbound/{token}`. Infobip does
 * not sign a forwarded message, so the URL carries a secret token: missing, unknown or none
 * configured answers 404 and is never logged with the token. A body not in Infobip's format is
 * 400 and nothing of it reaches the sink; otherwise each message goes to the sink in order and
 * the answer is 200, whatever the sink made of them. A sink that throws is 503 (by the app), and
 * Infobip sends the whole body again, which the sink recognises by `messageId`.
 */
export async function handleInfobipInbound(
  request: CallbackRequest,
  token: string,
  options: InfobipInboundOptions,
): Promise<CallbackResponse> {
  const route = INFOBIP_INBOUND_ROUTE;
  if (!checkInboundToken(options.tokens, token)) return emptyAnswer(404, "/providers/infobip");
  if (request.method !== "POST") return emptyAnswer(405, route, { allow: "POST" });
  const results = infobipInboundResults(bodyText(request.body));
  if (results === null) {
    options.logger.warn("infobip inbound refused: not Infobip's inbound messages", { route });
    return emptyAnswer(400, route);
  }
  for (const result of results) {
    if ("skipped" in result) {
      options.logger.info("infobip inbound message skipped: no text", {
        provider: "infobip",
        kind: result.skipped,
      });
      continue;
    }
    await receiveInbound(options.sink, options.logger, result.report);
  }
  return emptyAnswer(200, route);
}
