import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { type ServerProcess, startServer } from "../testing/child-cli.js";
import { eventually } from "../testing/eventually.js";
import { cliKey, cliOrganization, tempWorkspace } from "../testing/run-cli.js";

// `tidings serve` with OTEL_EXPORTER_OTLP_ENDPOINT set starts the OpenTelemetry Node SDK and
// exports its spans over OTLP: here to a stand-in collector on loopback, in OTLP/JSON so the
// test can read them. A child process, since the SDK registers itself for the whole process.

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

const cleanups = cleanupsEach();

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN_ID = "b7ad6b7169203331";

it("exports spans to the OTLP endpoint, continuing the caller's trace, and logs the trace id", async () => {
  const exports: OtlpExport[] = [];
  const paths: string[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      paths.push(req.url ?? "");
      exports.push(JSON.parse(Buffer.concat(chunks).toString() || "{}") as OtlpExport);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  const workspace = tempWorkspace();
  cleanups.push(() => workspace.cleanup());
  const org = await cliOrganization(workspace.env);
  const token = await cliKey(workspace.env, org, ["profiles:read"]);
  const server: ServerProcess = await startServer({
    ...(process.env as Record<string, string>),
    ...workspace.env,
    TIDINGS_LOG_LEVEL: "info",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "tidings-under-test",
    // Export within 100 ms instead of the batch processor's 5 s.
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  cleanups.push(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
  });
  expect(server.logs.find((line) => line.msg === "tracing on")).toMatchObject({
    service: "tidings-under-test",
    endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
  });

  const answer = await fetch(`http://127.0.0.1:${server.port}/v1/profiles/prf_unknown`, {
    headers: {
      authorization: `Bearer ${token}`,
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
    },
  });
  expect(answer.status).toBe(404);

  const request = await eventually("the request's span at the collector", async () => {
    const spans = exports.flatMap((e) =>
      (e.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? [])),
    );
    return spans.find((span) => span.name === "GET /v1/profiles/{public_id}");
  });
  expect(request).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN_ID });
  expect(paths).toContain("/v1/traces");
  const service = exports
    .flatMap((e) => e.resourceSpans ?? [])
    .flatMap((r) => r.resource?.attributes ?? [])
    .find((attribute) => attribute.key === "service.name");
  expect(service?.value.stringValue).toBe("tidings-under-test");

  const line = await eventually("the request's log line", async () =>
    server.logs.find((entry) => entry.msg === "request" && entry.status === 404),
  );
  expect(line.trace_id).toBe(TRACE_ID);
});
