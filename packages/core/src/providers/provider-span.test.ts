import {
  INVALID_SPAN_CONTEXT,
  type Span,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { afterAll, expect, it } from "vitest";
import { inProviderRequestSpan, noteProviderOutcome } from "./provider-span.js";

afterAll(() => trace.disable());

/** A provider whose spans note their name and attributes. */
function recordingProvider(): TracerProvider & {
  spans: Array<{ name: string; attributes: Record<string, unknown> }>;
} {
  const spans: Array<{ name: string; attributes: Record<string, unknown> }> = [];
  const tracer = {
    startActiveSpan: (
      name: string,
      options: { attributes?: Record<string, unknown> },
      ...rest: unknown[]
    ) => {
      const attributes: Record<string, unknown> = { ...options.attributes };
      spans.push({ name, attributes });
      const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
      const recording = Object.assign(Object.create(span) as Span, {
        setAttribute: (key: string, value: unknown) => {
          attributes[key] = value;
          return recording;
        },
        end: () => undefined,
      });
      const fn = rest.at(-1) as (span: Span) => unknown;
      return fn(recording);
    },
  } as unknown as Tracer;
  return { spans, getTracer: () => tracer };
}

it("a provider request runs in a span providerRequest naming provider and channel only", async () => {
  const provider = recordingProvider();
  trace.setGlobalTracerProvider(provider);
  await expect(inProviderRequestSpan("twilio", "sms", async () => "answered")).resolves.toBe(
    "answered",
  );
  expect(provider.spans).toEqual([
    {
      name: "providerRequest",
      attributes: { "tidings.provider": "twilio", "tidings.channel": "sms" },
    },
  ]);
  // Outside any span, noting an outcome is harmless.
  expect(() => noteProviderOutcome("accepted", 201)).not.toThrow();
});
