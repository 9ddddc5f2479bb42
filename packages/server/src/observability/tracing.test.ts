import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually } from "../testing/eventually.js";
import { type ServedTidings, serveTidings } from "../testing/served-tidings.js";

// The SDK's in-memory exporter stands in for an OTLP collector: registered globally in this test
// file's worker, as `tidings serve` does when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let served: ServedTidings;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  served = await serveTidings({ TIDINGS_SANDBOX_DELAY_MS: "50" });
});

afterAll(async () => {
  await served.stop();
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN_ID = "00f067aa0ba902b7";
const PHONE = "+14155550101";
const RECEIVER_TOKEN = "receiver-token-123";

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((span) => parentOf(span) === parent.spanContext().spanId);

it("one send is one span tree that continues the caller's traceparent, and no attribute holds personal data", async () => {
  // A receiver that answers 204, on loopback (the server runs with TIDINGS_DEV=1).
  const { createServer } = await import("node:http");
  const receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  const port = typeof address === "object" && address ? address.port : 0;
  try {
    const response = await fetch(`${served.url}/v1/messages/send`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${served.token}`,
        "content-type": "application/json",
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
      },
      body: JSON.stringify({
        campaign_id: served.campaignId,
        recipient: { type: "phone_number", value: PHONE },
        params: { pin: "123456" },
        webhook_url: `http://127.0.0.1:${port}/hooks?token=${RECEIVER_TOKEN}`,
      }),
    });
    expect(response.status).toBe(200);
    const { message_id: messageId } = (await response.json()) as { message_id: string };

    const spans = await eventually("the send's spans and a webhook attempt span", async () => {
      const finished = exporter.getFinishedSpans();
      const sent = finished.find((span) => span.name === "POST /v1/messages/send");
      const attempt = finished.find(
        (span) =>
          span.name === "webhook.attempt" && span.attributes["tidings.message_id"] === messageId,
      );
      return sent && attempt ? finished : undefined;
    });

    // The request's span continues the caller's trace, as a child of the caller's span.
    const request = spans.find((span) => span.name === "POST /v1/messages/send")!;
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(request)).toBe(CALLER_SPAN_ID);
    expect(request.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/messages/send",
      "http.response.status_code": 200,
    });

    // Under it: authentication and the send use case; under the send, its storage transactions.
    const useCases = childrenOf(spans, request).map((span) => span.name);
    expect(useCases).toEqual(expect.arrayContaining(["authenticate", "sendMessage"]));
    const send = childrenOf(spans, request).find((span) => span.name === "sendMessage")!;
    expect(send.attributes["tidings.message_id"]).toBe(messageId);
    const transactions = childrenOf(spans, send).filter((s) => s.name === "storage.transaction");
    expect(transactions.length).toBeGreaterThanOrEqual(1);
    for (const span of spans.filter((s) => s.spanContext().traceId === TRACE_ID)) {
      expect(span.spanContext().traceId).toBe(TRACE_ID);
    }

    // The webhook attempt: its own span with the delivery and message ids, and the receiver's
    // address without the query string.
    const attempt = spans.find(
      (span) =>
        span.name === "webhook.attempt" && span.attributes["tidings.message_id"] === messageId,
    )!;
    expect(attempt.attributes).toMatchObject({
      "url.scheme": "http",
      "server.address": "127.0.0.1",
      "url.path": "/hooks",
      "http.response.status_code": 204,
      "tidings.webhook.outcome": "delivered",
    });
    expect(attempt.attributes["tidings.delivery_id"]).toMatch(/^[0-9a-f-]{36}$/);

    // The engine's own transactions (claims, recording attempts) make no traces of their own.
    const rootTransactions = spans.filter(
      (span) => span.name === "storage.transaction" && parentOf(span) === undefined,
    );
    expect(rootTransactions).toEqual([]);

    // The request's log line names its trace.
    const line = await served.waitForLog("request", (entry) => entry.path === "/v1/messages/send");
    expect(line.trace_id).toBe(TRACE_ID);

    // Nothing personal or secret in any attribute of any span.
    const values = spans.flatMap((span) => Object.values(span.attributes).map(String));
    for (const value of values) {
      expect(value).not.toContain(PHONE);
      expect(value).not.toContain("4155550101");
      expect(value).not.toContain(RECEIVER_TOKEN);
      expect(value).not.toContain(served.token);
      expect(value).not.toContain("?");
    }
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
