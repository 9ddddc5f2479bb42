import {
  type Attributes,
  INVALID_SPAN_CONTEXT,
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
  if (options.onlyUnderAnother === true && trace.getActiveSpan() === undefined) {
    return fn(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
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
