import {
  INVALID_SPAN_CONTEXT,
  type Span,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { afterAll, expect, it } from "vitest";
import { inSpan, tracingEnabled } from "./tracing.js";

afterAll(() => trace.disable());

/** A provider whose tracer notes the spans it is asked for; each is a no-op span. */
function countingProvider(): TracerProvider & { started: string[] } {
  const started: string[] = [];
  const span = (): Span => trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  const tracer = {
    startSpan: (name: string) => {
      started.push(name);
      return span();
    },
    startActiveSpan: (name: string, ...rest: unknown[]) => {
      started.push(name);
      return (rest.at(-1) as (span: Span) => unknown)(span());
    },
    // `startActiveSpan` has three overloads (the callback last in each), which one arrow
    // function cannot be typed as; this one takes whatever comes before the callback.
  } as unknown as Tracer;
  return { started, getTracer: () => tracer };
}

// Registered once, and only after the first spans: `trace.disable()` leaves the tracers already
// handed out (this module's) behind the provider it discards.
it("inSpan runs its work without a span until a provider is registered, then in one", async () => {
  expect(tracingEnabled()).toBe(false);
  await expect(inSpan("before", {}, async () => "ran")).resolves.toBe("ran");
  const provider = countingProvider();
  trace.setGlobalTracerProvider(provider);
  expect(tracingEnabled()).toBe(true);
  await expect(inSpan("after", {}, async () => "ran")).resolves.toBe("ran");
  expect(provider.started).toEqual(["after"]);
});
