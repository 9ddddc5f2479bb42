import {
  type Attributes,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { isErrResult } from "./err-result.js";

/**
 * The core's tracer. Through `@opentelemetry/api` only: without an SDK registered by the host
 * every span is a no-op, so tracing costs nothing until someone turns it on.
 */
const tracer = trace.getTracer("@tidings/core");

/** The span handed to work that runs without one: records nothing. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** What the API's proxy provider delegates to while no SDK is registered. */
const UNSET = new ProxyTracerProvider().getDelegate();

/**
 * Whether the host registered a tracer provider (an SDK). Until one is, the API's global
 * provider is a proxy without a delegate, every span a no-op, and callers may skip the work
 * around spans (a context per span, a closure, an extra promise: a few percent of a cheap
 * request). Asked per span, so a provider registered later takes effect at once.
 */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider && provider.getDelegate() === UNSET);
}

/** Span attribute names the core writes; ids only, never a phone number, email or URL query. */
export const SPAN_ATTRIBUTES = {
  useCase: "tidings.use_case",
  messageId: "tidings.message_id",
  deliveryId: "tidings.delivery_id",
  attempt: "tidings.webhook.attempt",
} as const;

/**
 * Runs `fn` inside a span named `name`, active for everything `fn` awaits. An error `Result`
 * marks the span with its `type` (an expected failure, so not an exception); a rejection marks
 * it with the error's name only, since an exception's message may quote user input. With
 * `onlyUnderAnother`, no span is made outside a traced operation (a background poll's
 * transactions would otherwise each be a trace of their own, every second).
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  options: { onlyUnderAnother?: boolean } = {},
): Promise<T> {
  if (
    !tracingEnabled() ||
    (options.onlyUnderAnother === true && trace.getActiveSpan() === undefined)
  ) {
    return fn(NO_SPAN);
  }
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await fn(span);
      if (isErrResult(result)) {
        const error = (result as unknown as { error?: { type?: unknown } }).error;
        span.setAttribute("tidings.error_type", String(error?.type ?? "error"));
      }
      return result;
    } catch (error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.name : "Error",
      });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets an attribute on the span active now, if any (e.g. a use case's message id, once known). */
export function annotateActiveSpan(name: string, value: string | number): void {
  trace.getActiveSpan()?.setAttribute(name, value);
}
