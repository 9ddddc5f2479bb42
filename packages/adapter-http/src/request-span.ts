import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { tracingEnabled } from "@tidings/core";
import { headerValue, type RequestHeaders } from "./headers.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** The route label of a request that matched no route template. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The adapter's tracer, through `@opentelemetry/api` only: without an SDK registered by the host
 * it is a no-op, and so is the `traceparent` extraction.
 */
const tracer = trace.getTracer("@tidings/adapter-http");

const headersGetter: TextMapGetter<RequestHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => headerValue(carrier, key),
};

/** Where the app writes the template of the route that answered, while it answers. */
export interface RouteSeen {
  route: string;
}

/**
 * Answers `request` inside a server span that continues the caller's W3C `traceparent`, named
 * after the method and the route template (`GET /v1/profiles/{public_id}`). The span holds the
 * method, the template and the status: never the path with its ids, the query or a header. The
 * response is labelled with the route and, when tracing is on, the trace id, for the host's
 * metrics and logs.
 */
export function inRequestSpan(
  request: HttpRequest,
  answer: (seen: RouteSeen) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  // Without an SDK or a propagator (baggage) the span and the extraction do nothing.
  if (!tracingEnabled() && propagation.fields().length === 0) {
    const seen: RouteSeen = { route: UNMATCHED_ROUTE };
    return answer(seen).then((response) => {
      response.route = seen.route;
      return response;
    });
  }
  const parent = propagation.extract(context.active(), request.headers, headersGetter);
  return tracer.startActiveSpan(
    request.method,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method } },
    parent,
    async (span) => {
      const seen: RouteSeen = { route: UNMATCHED_ROUTE };
      try {
        const response = await answer(seen);
        span.updateName(`${request.method} ${seen.route}`);
        span.setAttributes({
          "http.route": seen.route,
          "http.response.status_code": response.status,
        });
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        response.route = seen.route;
        const spanContext = span.spanContext();
        if (isSpanContextValid(spanContext)) response.traceId = spanContext.traceId;
        return response;
      } finally {
        span.end();
      }
    },
  );
}
