import { type Deps, followLink, isLinkCode, isStorageUnavailable } from "@tidings/core";
import { headerValue } from "../headers.js";
import { isStorageBusy } from "../problem.js";
import type { HttpApp, HttpLogger, HttpRequest, HttpResponse } from "../types.js";
import {
  clientAddress,
  limitKeyOf,
  NO_TRUSTED_PROXIES,
  type TrustedProxies,
} from "./client-address.js";
import { isLinkPreviewAgent } from "./link-preview-agents.js";
import { unknownCodeLimit } from "./unknown-code-limit.js";

/** Where `serve` mounts the short links: `/l/{code}`. */
export const LINK_PATH = "/l";
/** The route label of every answer, for metrics and logs (a code is never a label). */
const ROUTE = `${LINK_PATH}/{code}`;

export interface LinkAppOptions {
  /** Proxies whose `X-Forwarded-For` names the client (none by default). */
  trustedProxies?: TrustedProxies | undefined;
  /** Where unexpected failures are logged (default: `console`). */
  logger?: HttpLogger | undefined;
  /** The clock of the unknown-code windows, in ms (default: `deps.clock`). */
  now?: (() => number) | undefined;
}

/** Headers of every answer: nothing cached, nothing of the short link passed on. */
const COMMON: Record<string, string> = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>
<body><h1>Link not found</h1><p>This link does not exist, or it has expired.</p></body></html>
`;

function answer(
  status: number,
  headers: Record<string, string>,
  body = "",
  method = "GET",
): HttpResponse {
  return {
    status,
    headers: {
      ...COMMON,
      ...headers,
      "content-length": String(Buffer.byteLength(body)),
    },
    body: method === "HEAD" ? "" : body,
    route: ROUTE,
  };
}

const text = (status: number, body: string, method: string, headers: Record<string, string> = {}) =>
  answer(status, { "content-type": "text/plain; charset=utf-8", ...headers }, `${body}\n`, method);

/**
 * The short links, `GET`/`HEAD /{code}` below wherever it is mounted (`serve` mounts it at
 * `/l`): a 302 to the stored URL, counted as a click unless it is a HEAD or a link-preview
 * fetcher's; an unknown code is a plain 404 page, and a client address that asks for more
 * than 60 unknown codes in a minute gets 429 for unknown codes until the minute ends. The
 * target is only ever the stored URL: the code is looked up as it arrives (no decoding), and
 * the query string is ignored.
 */
export function createLinkApp(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "telemetry">,
  options: LinkAppOptions = {},
): HttpApp {
  const logger = options.logger ?? console;
  const proxies = options.trustedProxies ?? NO_TRUSTED_PROXIES;
  const limit = unknownCodeLimit(options.now ?? (() => deps.clock.now()));

  function unknown(request: HttpRequest): HttpResponse {
    const forwarded = headerValue(request.headers, "x-forwarded-for") ?? null;
    const verdict = limit.hit(limitKeyOf(clientAddress(request.remoteAddress, forwarded, proxies)));
    if (!verdict.allowed) {
      return text(429, "Too many unknown links; try again later.", request.method, {
        "retry-after": String(verdict.retryAfterSeconds),
      });
    }
    return answer(
      404,
      {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": "default-src 'none'",
      },
      NOT_FOUND_PAGE,
      request.method,
    );
  }

  async function handle(request: HttpRequest): Promise<HttpResponse> {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") {
      return text(405, "Method not allowed.", method, { allow: "GET, HEAD" });
    }
    const path = (request.url.split("#", 1)[0] ?? "").split("?", 1)[0] ?? "";
    const code = path.startsWith("/") ? path.slice(1) : path;
    if (!isLinkCode(code)) return unknown(request);
    const userAgent = headerValue(request.headers, "user-agent") ?? null;
    const counted = method === "GET" && !isLinkPreviewAgent(userAgent);
    const followed = await followLink(deps, code, counted);
    if (followed.kind === "unknown") return unknown(request);
    return answer(302, { location: followed.location }, "", method);
  }

  return {
    maxBodyBytes: 0,
    async handle(request) {
      try {
        return await handle(request);
      } catch (error) {
        if (isStorageUnavailable(error) || isStorageBusy(error)) {
          return text(503, "Temporarily unavailable; try again.", request.method, {
            "retry-after": "1",
          });
        }
        logger.error("A short link failed", {
          error: String(error),
          stack: (error as Error)?.stack,
        });
        return text(500, "Something went wrong.", request.method);
      }
    },
    refuse(request, reason) {
      if (reason === "payload_too_large") return text(413, "No body is accepted.", request.method);
      if (reason === "request_aborted")
        return text(400, "The request was cut off.", request.method);
      return unknown(request);
    },
  };
}
