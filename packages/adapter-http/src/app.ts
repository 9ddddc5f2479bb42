import {
  authenticate,
  type Deps,
  type InboundSink,
  inboundSink,
  isStorageUnavailable,
  providerOf,
  requireScope,
} from "@tidings/core";
import { type Answer, json, problem, render } from "./answer.js";
import { headerValue } from "./headers.js";
import { bodyLength } from "./json-body.js";
import { buildOpenApiDocument } from "./openapi/document.js";
import { domainProblem, edgeProblems, isStorageBusy, problemResponse } from "./problem.js";
import { requestIdOf } from "./request-id.js";
import { inRequestSpan, type RouteSeen } from "./request-span.js";
import { type Route, unexpectedQuery } from "./route.js";
import { createRouter } from "./router.js";
import { campaignRoutes } from "./routes/campaign-routes.js";
import { consentRoutes } from "./routes/consent-routes.js";
import { deliveryRoutes } from "./routes/delivery-routes.js";
import { messageRoutes } from "./routes/message-routes.js";
import { messageReadRoutes } from "./routes/operator-message-routes.js";
import { privacyRoutes } from "./routes/privacy-routes.js";
import { profileRoutes } from "./routes/profile-routes.js";
import { sandboxDevRoutes, sandboxRoutes } from "./routes/sandbox-routes.js";
import { settingsRoutes } from "./routes/settings-routes.js";
import { webhookRoutes } from "./routes/webhook-routes.js";
import { deadlineWatch, storageWithDeadline } from "./storage-deadline.js";
import type { HttpApp, HttpLogger, HttpRequest, HttpResponse } from "./types.js";

/** 1 MiB: the largest request body (docs/decisions.md "Status codes"). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  /**
   * Serve `POST /sandbox/messages/{message_id}/report`. Defaults to whether the sandbox carries
   * some channel (`deps.provider`'s `name`, or its `providerFor` a channel, is `"sandbox"`).
   */
  sandbox?: boolean | undefined;
  /**
   * Development (`TIDINGS_DEV=1`): with the sandbox, also serve `GET /sandbox/messages/{id}`,
   * the text a message handed the sandbox (never outside development: an OTP is a secret).
   */
  dev?: boolean | undefined;
  /** Where unexpected failures are logged, with their stack (default: `console`). */
  logger?: HttpLogger | undefined;
  /** The mount path announced in the OpenAPI `servers` entry, e.g. `/messaging`; default `/`. */
  basePath?: string | undefined;
  /** The largest request body, in bytes (1 MiB). */
  maxBodyBytes?: number | undefined;
  /**
   * Where `POST /sandbox/inbound` (development) hands a message; by default an inbound sink
   * over `deps` with the default keywords.
   */
  inboundSink?: InboundSink | undefined;
  /**
   * How long one request may spend on storage, in ms, all its calls together (default: no
   * limit here). A call still running when the time is up, or begun after, is given up: the
   * request answers 503 `storage_unavailable`, saying whether anything may have been written
   * (a transaction cut off before its COMMIT rolls back). Give the storage the same bound for
   * each of its own waits (a PostgreSQL pool's `connectionTimeoutMillis` and `query_timeout`,
   * SQLite's `busyTimeoutMs`), so what a request gave up does not run on for long.
   */
  storageTimeoutMs?: number | undefined;
  /**
   * How long `GET /readyz` waits for the storage's probe before it answers 503 `not_ready`
   * (default 1500 ms), so a load balancer hears back in time whatever storage does.
   */
  readyTimeoutMs?: number | undefined;
}

/** `GET /readyz`'s default wait for the storage's probe. */
export const DEFAULT_READY_TIMEOUT_MS = 1500;

/** Whether `probe` succeeds within `ms`; its later outcome is ignored. */
function answersWithin(probe: () => Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const answered = Promise.resolve()
    .then(probe)
    .then(
      () => true,
      () => false,
    );
  return Promise.race([answered, late]).finally(() => clearTimeout(timer));
}

/** Every route under `/v1`; the sandbox's are apart, served only with the sandbox provider. */
const apiRoutes: readonly Route[] = [
  ...profileRoutes,
  ...privacyRoutes,
  ...messageRoutes,
  ...messageReadRoutes,
  ...webhookRoutes,
  ...campaignRoutes,
  ...deliveryRoutes,
  ...consentRoutes,
  ...settingsRoutes,
];

/**
 * The OpenAPI document `GET /openapi.json` serves, built without a server: what clients
 * generate their types from (`@tidings/client` commits its own, generated with no sandbox).
 */
export function servedOpenApiDocument(
  options: {
    sandbox?: boolean | undefined;
    /** Development mode: the sandbox's development routes are served, so documented too. */
    dev?: boolean | undefined;
    basePath?: string | undefined;
  } = {},
) {
  const sandboxed = options.dev === true ? [...sandboxRoutes, ...sandboxDevRoutes] : sandboxRoutes;
  const documented = options.sandbox ? [...apiRoutes, ...sandboxed] : apiRoutes;
  return buildOpenApiDocument(documented, { basePath: options.basePath });
}

interface PublicRoute {
  method: string;
  path: string;
  run(): Promise<Answer>;
}

/** Splits `path?query#fragment`; only origin-form targets (starting with `/`) are routed. */
function splitTarget(url: string): { path: string; query: URLSearchParams } | null {
  const withoutFragment = url.split("#", 1)[0] ?? "";
  const at = withoutFragment.indexOf("?");
  const path = at === -1 ? withoutFragment : withoutFragment.slice(0, at);
  if (!path.startsWith("/")) return null;
  return { path, query: new URLSearchParams(at === -1 ? "" : withoutFragment.slice(at + 1)) };
}

/** HEAD is routed as GET (RFC 9110 §9.3.2); every other method as itself. */
const routedMethod = (method: string): string => (method === "HEAD" ? "GET" : method);

/**
 * The response as sent for `method`: with its `Content-Length` (none on a 204, RFC 9110
 * §8.6), and for HEAD with the status and headers of the GET answer but no body.
 */
function forMethod(method: string, response: HttpResponse): HttpResponse {
  if (response.status !== 204) {
    response.headers["content-length"] = String(Buffer.byteLength(response.body));
  }
  return method === "HEAD" ? { ...response, body: "" } : response;
}

/**
 * The REST API as a framework-neutral `handle(request) → response`. Under `/v1` (and
 * `/sandbox`), authentication runs before routing, so an unauthenticated caller learns nothing
 * about which paths exist; `/healthz`, `/readyz` and `/openapi.json` are public.
 */
export function createHttpApp(deps: Deps, options: HttpAppOptions = {}): HttpApp {
  const logger: HttpLogger = options.logger ?? console;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const { storageTimeoutMs } = options;
  const watch = deadlineWatch();
  /** `deps` as one request begun now sees them: its storage refuses calls once its time is up. */
  const requestDeps = (): Deps =>
    storageTimeoutMs === undefined
      ? deps
      : {
          ...deps,
          storage: storageWithDeadline(deps.storage, Date.now(), storageTimeoutMs, watch),
        };
  const inbound = options.inboundSink ?? inboundSink(deps);
  const sandbox =
    options.sandbox ??
    (["viber", "sms"] as const).some((channel) => providerOf(deps.provider, channel) === "sandbox");
  let openApi: string | null = null;

  const publicRouter = createRouter<PublicRoute>([
    { method: "GET", path: "/healthz", run: async () => json(200, { status: "ok" }) },
    {
      method: "GET",
      path: "/readyz",
      async run() {
        // The probe also clears the storage's health once it works again. One that does not
        // answer in time (a database that stopped answering) is as good as one that failed.
        const ready = await answersWithin(() => deps.storage.ping(), readyTimeoutMs);
        return ready ? json(200, { status: "ready" }) : problem(edgeProblems.notReady());
      },
    },
    {
      method: "GET",
      path: "/openapi.json",
      async run() {
        openApi ??= JSON.stringify(
          servedOpenApiDocument({ sandbox, dev: options.dev, basePath: options.basePath }),
        );
        return {
          kind: "stored",
          status: 200,
          headers: { "content-type": "application/json" },
          body: openApi,
        };
      },
    },
  ]);
  const apiRouter = createRouter(apiRoutes);
  const sandboxRouter = createRouter(
    options.dev === true ? [...sandboxRoutes, ...sandboxDevRoutes] : sandboxRoutes,
  );

  async function authenticated(
    request: HttpRequest,
    requestId: string,
    router: ReturnType<typeof createRouter<Route>>,
    path: string,
    query: URLSearchParams,
    seen: RouteSeen,
  ): Promise<Answer> {
    const scoped = requestDeps();
    // Matched before authenticating only to name the route in metrics and traces; the answer
    // still says nothing about which paths exist until the caller is authenticated.
    const match = router.match(routedMethod(request.method), path);
    if (match.kind === "found") seen.route = match.route.path;
    if (match.kind === "method_not_allowed") seen.route = match.template;
    const principal = await authenticate(scoped, headerValue(request.headers, "authorization"));
    if (principal.isErr()) return problem(edgeProblems.unauthorized());
    if (match.kind === "not_found") return problem(edgeProblems.routeNotFound(path));
    if (match.kind === "method_not_allowed") {
      return problem(edgeProblems.methodNotAllowed(request.method, match.allow));
    }
    const { route, params } = match;
    for (const scope of route.scope === null ? [] : [route.scope].flat()) {
      const permitted = requireScope(principal.value.scopes, scope);
      if (permitted.isErr()) return problem(domainProblem(permitted.error));
    }
    // A rate-limited route counts the request first and refuses the query itself, so that
    // 400 is counted and carries the RateLimit headers like any other (docs/decisions.md "Rate limit").
    const badQuery = route.doc.query || route.doc.rateLimited ? null : unexpectedQuery(query);
    if (badQuery) return badQuery;
    const { organizationId, apiKeyId } = principal.value;
    return route.handle({
      deps: scoped,
      inbound,
      request,
      requestId,
      principal: principal.value,
      actor: { organizationId, apiKeyId },
      params,
      query,
    });
  }

  async function dispatch(
    request: HttpRequest,
    requestId: string,
    seen: RouteSeen,
  ): Promise<Answer> {
    if (bodyLength(request.body) > maxBodyBytes) {
      return problem(edgeProblems.payloadTooLarge(maxBodyBytes));
    }
    const target = splitTarget(request.url);
    if (!target) return problem(edgeProblems.routeNotFound(request.url));
    const { path, query } = target;
    if (/%00|\0/i.test(request.url)) return problem(edgeProblems.nulCharacter("url"));
    if (path === "/v1" || path.startsWith("/v1/")) {
      return authenticated(request, requestId, apiRouter, path, query, seen);
    }
    if (sandbox && path.startsWith("/sandbox/")) {
      return authenticated(request, requestId, sandboxRouter, path, query, seen);
    }
    const match = publicRouter.match(routedMethod(request.method), path);
    if (match.kind === "found") {
      seen.route = match.route.path;
      return match.route.run();
    }
    if (match.kind === "method_not_allowed") {
      seen.route = match.template;
      return problem(edgeProblems.methodNotAllowed(request.method, match.allow));
    }
    return problem(edgeProblems.routeNotFound(path));
  }

  // An outage is logged once when it starts and once when it ends, not at every request it
  // fails; without a storage that reports its health, each such request is logged, stackless.
  const health = deps.storage.health;
  health?.onChange((change) => {
    if (change.available) {
      logger.info?.("storage available again", { unavailable_for_ms: change.unavailableForMs });
    } else {
      logger.warn?.("storage unavailable: answering 503 until it is back", {
        reason: change.error.reason,
        error: change.error.message,
      });
    }
  });

  /** The answer to one request, with its request id; unexpected failures become a logged 500. */
  async function answer(request: HttpRequest, seen: RouteSeen): Promise<HttpResponse> {
    const requestId = requestIdOf(request.headers, deps.ids);
    let response: HttpResponse;
    try {
      response = render(await dispatch(request, requestId, seen), requestId);
    } catch (error) {
      if (isStorageUnavailable(error)) {
        if (health === undefined) {
          logger.warn?.("request refused: storage unavailable", {
            request_id: requestId,
            method: request.method,
            path: splitTarget(request.url)?.path ?? null,
            error: error.message,
          });
        }
        const write = request.method !== "GET" && request.method !== "HEAD";
        response = problemResponse(
          edgeProblems.storageUnavailable(error.outcome, write),
          requestId,
        );
        response.headers["cache-control"] ??= "no-store";
        return forMethod(request.method, response);
      }
      if (isStorageBusy(error)) {
        logger.warn?.("request refused: storage busy", {
          request_id: requestId,
          method: request.method,
          path: splitTarget(request.url)?.path ?? null,
          error: String(error),
        });
        response = problemResponse(edgeProblems.storageBusy(), requestId);
        response.headers["cache-control"] ??= "no-store";
        return forMethod(request.method, response);
      }
      logger.error("request failed", {
        request_id: requestId,
        method: request.method,
        path: splitTarget(request.url)?.path ?? null,
        error: error instanceof Error ? error : new Error(String(error)),
        stack: error instanceof Error ? error.stack : undefined,
      });
      response = problemResponse(edgeProblems.internal(), requestId);
    }
    // Answers carry secrets and per-key state; no shared cache may keep them.
    response.headers["cache-control"] ??= "no-store";
    return forMethod(request.method, response);
  }

  return {
    maxBodyBytes,
    handle(received) {
      const request = { ...received, method: received.method.toUpperCase() };
      return inRequestSpan(request, (seen) => answer(request, seen));
    },
    refuse(received, reason) {
      const request = { ...received, method: received.method.toUpperCase() };
      const requestId = requestIdOf(request.headers, deps.ids);
      const spec =
        reason === "payload_too_large"
          ? edgeProblems.payloadTooLarge(maxBodyBytes)
          : reason === "request_aborted"
            ? edgeProblems.requestAborted()
            : edgeProblems.routeNotFound(splitTarget(request.url)?.path ?? request.url);
      const response = problemResponse(spec, requestId);
      response.headers["cache-control"] = "no-store";
      return forMethod(request.method, response);
    },
  };
}
