import { isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import type { WebhookRequest, WebhookResponse, WebhookTransport } from "@tidings/core";
import { Agent, request } from "undici";
import { ADDRESS_REFUSED, createUrlPolicy } from "./url-policy.js";

/** The most of a receiver's answer that is read; the rest is discarded unread. */
export const RESPONSE_BODY_LIMIT = 2048;

export interface WebhookTransportOptions {
  /**
   * The connect-time guard, a `dns.lookup` replacement run for every new connection (and for
   * IP-literal hosts, which `net.connect` never looks up). Defaults to `urlPolicy`'s
   * `guardedLookup`, else to the production policy's (public addresses only).
   */
  lookup?: LookupFunction | undefined;
  /** The policy whose `guardedLookup` guards connections, when `lookup` is not given. */
  urlPolicy?: { guardedLookup: LookupFunction } | undefined;
  /** Most open connections per receiver origin (16). */
  connections?: number | undefined;
}

/** A `WebhookTransport` that also releases its connection pool. */
export interface ClosableWebhookTransport extends WebhookTransport {
  close(): Promise<void>;
}

/**
 * The undici `WebhookTransport`: one pooled keep-alive `Agent` for every receiver, redirects
 * never followed (a 301 is just a non-2xx answer), a hard deadline on the whole exchange, at
 * most the first 2 KiB of the answer kept, and the SSRF guard on every address at connect time.
 * `post` never rejects: failures come back as `{ kind: "error" }` with a readable reason.
 */
export function undiciWebhookTransport(
  options: WebhookTransportOptions = {},
): ClosableWebhookTransport {
  const lookup =
    options.lookup ??
    options.urlPolicy?.guardedLookup ??
    createUrlPolicy({ dev: false }).guardedLookup;
  const agent = new Agent({
    connections: options.connections ?? 16,
    connect: { lookup },
  });

  let closed = false;

  return {
    async post(webhook: WebhookRequest): Promise<WebhookResponse> {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      // Started before anything else, so DNS, connecting, headers and body all share it.
      const deadline = AbortSignal.timeout(webhook.timeoutMs);
      try {
        await refuseLiteralHost(webhook.url, lookup);
        const response = await request(webhook.url, {
          method: "POST",
          headers: webhook.headers,
          body: webhook.body,
          dispatcher: agent,
          signal: deadline,
          headersTimeout: webhook.timeoutMs,
          bodyTimeout: webhook.timeoutMs,
        });
        const body = await readFirstBytes(response.body, RESPONSE_BODY_LIMIT);
        return {
          kind: "response",
          status: response.statusCode,
          headers: flattenHeaders(response.headers),
          body,
          durationMs: durationMs(),
        };
      } catch (error) {
        return {
          kind: "error",
          error: describeFailure(error, deadline, webhook.timeoutMs),
          durationMs: durationMs(),
        };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await agent.close();
    },
  };
}

/**
 * `net.connect` skips `lookup` for a host that is already an IP address, so such a host is put
 * through the guard here, before any connection is made.
 */
async function refuseLiteralHost(url: string, lookup: LookupFunction): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TransportRefusal("refused: the URL is not a valid absolute URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new TransportRefusal(`refused: the ${parsed.protocol} scheme is not http or https`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) === 0) return;
  await new Promise<void>((resolve, reject) => {
    lookup(host, { all: true }, (error) => (error ? reject(error) : resolve()));
  });
}

class TransportRefusal extends Error {
  readonly code = ADDRESS_REFUSED;
}

/**
 * Reads at most `limit` bytes of a body and destroys the stream, so a huge or endless answer
 * costs no more than that. The text never ends in a split character.
 */
async function readFirstBytes(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  // Leaving a `for await` early (the limit, or an error) destroys the stream, which makes undici
  // drop the rest of the answer; a body read to its end leaves the connection reusable.
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(bytes);
    length += bytes.length;
    if (length >= limit) break;
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  let end = bytes.length;
  if (length > limit) {
    // Back up to the start of a character: continuation bytes are 0b10xxxxxx.
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  }
  return bytes.subarray(0, end).toString("utf8");
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** A failure as one clear line for the attempt log. */
function describeFailure(error: unknown, deadline: AbortSignal, timeoutMs: number): string {
  const code = codeOf(error);
  if (deadline.aborted || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return `timeout after ${timeoutMs} ms`;
  }
  if (code === ADDRESS_REFUSED) return messageOf(error);
  // undici wraps socket failures; the system error code (ECONNRESET…) sits on the cause.
  const cause = error instanceof Error ? error.cause : undefined;
  const causeCode = codeOf(cause);
  if (causeCode === ADDRESS_REFUSED) return messageOf(cause);
  const systemCode = [causeCode, code].find((c) => c !== undefined && /^E[A-Z]+$/.test(c));
  if (systemCode !== undefined) {
    const message = messageOf(causeCode === systemCode ? cause : error);
    return message.includes(systemCode) ? message : `${systemCode}: ${message}`;
  }
  if (code === "UND_ERR_SOCKET") {
    return `the connection was closed before an answer arrived (${messageOf(error)})`;
  }
  return messageOf(error);
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
