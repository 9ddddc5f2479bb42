import { normalizePrefix, unprefixed } from "./mount-prefix.js";
import type { HttpApp, HttpResponse } from "./types.js";

export interface FetchHandlerOptions {
  /** Mount path such as `/messaging`: only requests under it are served, with it removed. */
  prefix?: string | undefined;
  /** The largest body read, in bytes; defaults to the app's (1 MiB). */
  maxBodyBytes?: number | undefined;
  /**
   * The peer's address of a request, when the host knows it (a `Request` does not carry it):
   * the short links' limit on unknown codes counts per address, all unknown ones together.
   */
  remoteAddress?: ((request: Request) => string | undefined) | undefined;
}

/** The API as a web-standard handler: what Hono, Bun, Deno and Next.js route handlers take. */
export type FetchHandler = (request: Request) => Promise<Response>;

type BodyOutcome =
  | { kind: "body"; body: Uint8Array | undefined }
  | { kind: "too_large" }
  | { kind: "aborted" };

/**
 * Reads a request body chunk by chunk, keeping at most `max` bytes: a streamed body past the
 * limit is cancelled there, not buffered whole. A stream that fails (the client went away)
 * is `aborted`.
 */
async function readBody(request: Request, max: number): Promise<BodyOutcome> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) {
    await request.body?.cancel().catch(() => undefined);
    return { kind: "too_large" };
  }
  if (request.body === null) return { kind: "body", body: undefined };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return { kind: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    return { kind: "aborted" };
  }
  if (size === 0) return { kind: "body", body: undefined };
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return { kind: "body", body };
}

/** The request's headers as the app reads them (lowercase names; repeats joined by `, `). */
function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** Statuses whose answer must not carry a body (RFC 9110 §15.3.5, §15.4.5). */
const BODILESS = new Set([204, 205, 304]);

function toResponse(response: HttpResponse, extra: Record<string, string> = {}): Response {
  const body = BODILESS.has(response.status) || response.body === "" ? null : response.body;
  return new Response(body, {
    status: response.status,
    headers: { ...response.headers, ...extra },
  });
}

/**
 * The API as `fetch(request) → Response`, mountable under a path prefix, beside the node:http
 * listener and answering as it does: a body over the limit is 413 without being buffered
 * (also a streamed one, cut off at the limit), a request outside the prefix is 404, and a
 * request whose body breaks off never reaches the API (it is answered 400 `request_aborted`,
 * which the departed client does not read).
 */
export function createFetchHandler(app: HttpApp, options: FetchHandlerOptions = {}): FetchHandler {
  const prefix = normalizePrefix(options.prefix);
  const max = options.maxBodyBytes ?? app.maxBodyBytes;

  return async (request) => {
    const parsed = new URL(request.url);
    const target = `${parsed.pathname}${parsed.search}`;
    const method = request.method;
    const headers = headersOf(request);
    const url = unprefixed(target, prefix);
    if (url === null) {
      await request.body?.cancel().catch(() => undefined);
      return toResponse(app.refuse({ method, url: target, headers }, "route_not_found"));
    }
    const outcome = await readBody(request, max);
    if (outcome.kind === "too_large") {
      return toResponse(app.refuse({ method, url, headers }, "payload_too_large"), {
        connection: "close",
      });
    }
    if (outcome.kind === "aborted") {
      return toResponse(app.refuse({ method, url, headers }, "request_aborted"));
    }
    const remoteAddress = options.remoteAddress?.(request);
    return toResponse(
      await app.handle({ method, url, headers, body: outcome.body, remoteAddress }),
    );
  };
}
