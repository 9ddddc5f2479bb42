/** A request as the framework-neutral app sees it: no sockets, no streams. */
export interface HttpRequest {
  method: string;
  /** Path and query, e.g. `/v1/profiles?limit=10`, without any mount prefix. */
  url: string;
  /** Header names in any case; node:http's `IncomingMessage.headers` fits as is. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body; `undefined` or empty when none was sent. */
  body?: Uint8Array | string | undefined;
  /** The peer's IP address (the socket's), when the listener knows it. */
  remoteAddress?: string | undefined;
}

/** The app's answer: header names are lowercase, the body is text (empty for 204). */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * The template of the route that answered (`/v1/profiles/{public_id}`), `unmatched` when
   * none did: a bounded label for the host's metrics. Never sent.
   */
  route?: string | undefined;
  /** The id of the trace the request's span belongs to, when tracing is on, for logs. Never sent. */
  traceId?: string | undefined;
}

/** The little of a logger the HTTP edge needs; the server's JSON-lines logger fits. */
export interface HttpLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn?(msg: string, fields?: Record<string, unknown>): void;
  info?(msg: string, fields?: Record<string, unknown>): void;
}

/** The REST API as a function from request to response. */
export interface HttpApp {
  /** Answers one request; never rejects (unexpected failures become a logged 500). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /**
   * The answer to a request refused before its body is read: 413 when the body exceeds
   * `maxBodyBytes`, 404 when it is outside the mount prefix, 400 when the body was cut off.
   * Carries the request id.
   */
  refuse(request: Omit<HttpRequest, "body">, reason: RefusalReason): HttpResponse;
  /** The largest request body accepted, in bytes (1 MiB unless configured). */
  readonly maxBodyBytes: number;
}

/**
 * Why a listener refused a request without handing it to the app. `request_aborted`: the
 * client went away before its body ended (only a fetch handler must still answer then).
 */
export type RefusalReason = "payload_too_large" | "route_not_found" | "request_aborted";
