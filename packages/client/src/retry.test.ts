import { describe, expect, it } from "vitest";
import { Tidings } from "./client.js";
import { TidingsError } from "./errors.js";
import { BASE_BACKOFF_MS, backoffMs, MAX_BACKOFF_MS } from "./retry.js";

/**
 * The retry rules against a scripted fetch: which failures are retried for which requests,
 * with which headers. The real server's side of it (a 429 waited out, a dropped connection
 * replayed by idempotency) is in client.test.ts.
 */

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
}

type Step = Response | Error | "hang";

/** A fetch that answers each call with the next step, and records what it was asked. */
function scripted(...steps: Step[]) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    seen.push({
      method: init?.method ?? "GET",
      url: String(input),
      headers: { ...(init?.headers as Record<string, string>) },
    });
    const step = steps.shift();
    if (step === undefined) throw new Error("the script ran out");
    if (step === "hang") {
      return new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    }
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetch, seen };
}

const problem = (
  status: number,
  code: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) =>
  new Response(
    JSON.stringify({
      type: `x/${code}`,
      title: "t",
      status,
      detail: `${code}!`,
      code,
      request_id: "req-1",
      ...extra,
    }),
    { status, headers: { "content-type": "application/problem+json", ...headers } },
  );
const ok = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const client = (fetch: typeof globalThis.fetch, maxRetries = 2) =>
  new Tidings({ token: "key:secret", baseUrl: "http://tidings.test/", fetch, maxRetries });

const refused = () =>
  new TypeError("fetch failed", {
    cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
  });

const SEND = {
  campaign_id: "cmp_1",
  recipient: { type: "phone_number" as const, value: "+14155550101" },
};

const rejection = async (promise: Promise<unknown>): Promise<TidingsError> => {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TidingsError);
  return error as TidingsError;
};

describe("which failures are retried", () => {
  it("retries a send on a 500 with the same generated Idempotency-Key, and a read likewise", async () => {
    const { fetch, seen } = scripted(problem(500, "internal_error"), ok({ message_id: "m1" }));
    expect(await client(fetch).messages.send(SEND)).toEqual({ message_id: "m1" });
    expect(seen).toHaveLength(2);
    const [first, second] = seen.map((call) => call.headers["idempotency-key"]);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).toBe(first);
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "http://tidings.test/v1/messages/send",
      headers: { authorization: "Bearer key:secret", "content-type": "application/json" },
    });

    const read = scripted(new TypeError("fetch failed"), problem(503, "not_ready"), ok({ a: 1 }));
    expect(await client(read.fetch).profiles.get("prf_1")).toEqual({ a: 1 });
    expect(read.seen.map((call) => call.headers["idempotency-key"])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("sends the caller's Idempotency-Key, and retries 408 and 409 idempotency_in_progress", async () => {
    const { fetch, seen } = scripted(
      problem(408, "request_timeout"),
      problem(409, "idempotency_in_progress"),
      ok({ public_id: "prf_1" }, 201),
    );
    await client(fetch).profiles.create(
      { phone_number: "+14155550101" },
      { idempotencyKey: "order-7" },
    );
    expect(seen.map((call) => call.headers["idempotency-key"])).toEqual([
      "order-7",
      "order-7",
      "order-7",
    ]);
  });

  it("does not retry an unsafe write the server may have acted on", async () => {
    for (const failure of [
      problem(500, "internal_error"),
      new TypeError("fetch failed"),
      problem(503, "not_ready"),
    ]) {
      const { fetch, seen } = scripted(failure, ok({}));
      const error = await rejection(client(fetch).webhooks.rotateSecret("whk_1"));
      expect(seen).toHaveLength(1);
      expect(error.status === 0 ? error.code : error.status).toBe(
        failure instanceof Error ? "network_error" : failure.status,
      );
    }
    // A conflict that is not a request in flight is an answer, not a hiccup.
    const conflict = scripted(problem(409, "phone_number_taken"), ok({}));
    const error = await rejection(
      client(conflict.fetch).profiles.create({ phone_number: "+14155550101" }),
    );
    expect(error.code).toBe("phone_number_taken");
    expect(conflict.seen).toHaveLength(1);
  });

  it("retries an unsafe write where the server provably did nothing: 429, 503 storage_busy, a refused connection", async () => {
    const { fetch, seen } = scripted(
      problem(429, "rate_limited", { "retry-after": "0" }),
      problem(503, "storage_busy", { "retry-after": "0" }),
      refused(),
      ok({ webhook_id: "whk_1", signing_secret: "whsec_x" }),
    );
    const rotated = await client(fetch, 3).webhooks.rotateSecret("whk_1");
    expect(rotated.webhook_id).toBe("whk_1");
    expect(seen).toHaveLength(4);
  });

  it("retries an unsafe write after 503 storage_unavailable only when the server says nothing changed", async () => {
    const unchanged = scripted(
      problem(503, "storage_unavailable", { "retry-after": "0" }, { changed: false }),
      ok({ webhook_id: "whk_1", signing_secret: "whsec_x" }),
    );
    await client(unchanged.fetch, 3).webhooks.rotateSecret("whk_1");
    expect(unchanged.seen).toHaveLength(2);

    const unknown = scripted(
      problem(503, "storage_unavailable", { "retry-after": "0" }, { changed: null }),
      ok({ webhook_id: "whk_1", signing_secret: "whsec_x" }),
    );
    const error = await rejection(client(unknown.fetch, 3).webhooks.rotateSecret("whk_1"));
    expect(unknown.seen).toHaveLength(1);
    expect(error).toMatchObject({ code: "storage_unavailable", changed: null });
  });

  it("stops after maxRetries and throws the last error, with its request id and Retry-After", async () => {
    const { fetch, seen } = scripted(
      problem(502, "bad_gateway"),
      problem(502, "bad_gateway"),
      problem(503, "storage_busy", { "retry-after": "0" }),
      ok({}),
    );
    const error = await rejection(client(fetch).campaigns.get("cmp_1"));
    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({
      status: 503,
      code: "storage_busy",
      requestId: "req-1",
      retryAfter: 0,
    });

    const none = scripted(problem(500, "internal_error"), ok({}));
    await rejection(client(none.fetch, 0).profiles.get("prf_1"));
    expect(none.seen).toHaveLength(1);
  });

  it("does not wait out a Retry-After longer than a minute: the caller gets it to schedule", async () => {
    const { fetch, seen } = scripted(
      problem(429, "rate_limited", { "retry-after": "120" }),
      ok({}),
    );
    const error = await rejection(client(fetch).messages.send(SEND));
    expect(seen).toHaveLength(1);
    expect(TidingsError.is(error, "rate_limited") && error.retryAfter).toBe(120);
  });

  it("times out a hung attempt, retries a read, and never retries past the caller's abort", async () => {
    const hung = scripted("hang", ok({ ok: true }));
    const tidings = new Tidings({
      token: "k:s",
      baseUrl: "http://tidings.test",
      fetch: hung.fetch,
      timeoutMs: 50,
    });
    expect(await tidings.deliveries.get("d1")).toEqual({ ok: true });

    // An update that timed out may have been applied: it is reported, not repeated.
    const update = scripted("hang", ok({}));
    const slow = new Tidings({
      token: "k:s",
      baseUrl: "http://x",
      fetch: update.fetch,
      timeoutMs: 20,
    });
    const timeout = await rejection(slow.profiles.update("prf_1", { first_name: "Ada" }));
    expect(timeout).toMatchObject({ status: 0, code: "timeout" });
    expect(update.seen).toHaveLength(1);

    const stopped = scripted("hang", ok({}));
    const controller = new AbortController();
    const call = client(stopped.fetch).profiles.get("prf_1", { signal: controller.signal });
    controller.abort(new Error("the user left"));
    await expect(call).rejects.toThrow("the user left");
    expect(stopped.seen).toHaveLength(1);
  });
});

describe("paths", () => {
  it("encodes ids so none can reach another path", async () => {
    const { fetch, seen } = scripted(ok({}), ok({}), ok({}));
    await client(fetch).profiles.get("a/b?c#d");
    await client(fetch).profiles.get("..");
    await client(fetch).profiles.list({ email: "a+b@example.com", limit: 5 }).page();
    expect(seen.map((call) => new URL(call.url).href)).toEqual([
      "http://tidings.test/v1/profiles/a%2Fb%3Fc%23d",
      "http://tidings.test/v1/profiles/%252E%252E",
      "http://tidings.test/v1/profiles?email=a%2Bb%40example.com&limit=5",
    ]);
  });
});

describe("a retried delete", () => {
  it("takes 404 after a lost answer as done, but a first 404 as the error it is", async () => {
    const { fetch, seen } = scripted(
      new TypeError("fetch failed"),
      problem(404, "profile_not_found"),
    );
    await client(fetch).profiles.delete("prf_1");
    expect(seen.map((call) => call.method)).toEqual(["DELETE", "DELETE"]);

    const never = scripted(problem(404, "profile_not_found"));
    const error = await rejection(client(never.fetch).profiles.delete("prf_missing"));
    expect(error.code).toBe("profile_not_found");
  });
});

describe("the generated Idempotency-Key", () => {
  it("is a UUID v4 also where crypto.randomUUID is missing (a browser page over plain http)", async () => {
    const original = crypto.randomUUID;
    Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
    try {
      expect(crypto.randomUUID).toBeUndefined();
      const { fetch, seen } = scripted(ok({}), ok({}));
      await client(fetch).messages.send(SEND);
      await client(fetch).messages.send(SEND);
      const [a, b] = seen.map((call) => call.headers["idempotency-key"]);
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(b).not.toBe(a);
    } finally {
      Object.defineProperty(crypto, "randomUUID", { value: original, configurable: true });
    }
  });
});

describe("errors", () => {
  it("carries the issues, and takes the request id from the header when the body has none", async () => {
    const body = {
      type: "x",
      title: "Bad Request",
      status: 400,
      detail: "The request is invalid.",
      code: "validation_failed",
      errors: [{ path: "phone_number", message: "must be E.164." }],
    };
    const { fetch } = scripted(
      new Response(JSON.stringify(body), { status: 400, headers: { "x-request-id": "hdr-9" } }),
    );
    const error = await rejection(client(fetch).profiles.create({ phone_number: "nope" }));
    expect(error).toMatchObject({
      status: 400,
      code: "validation_failed",
      detail: "The request is invalid.",
      issues: [{ path: "phone_number", message: "must be E.164." }],
      requestId: "hdr-9",
      retryAfter: null,
    });
    expect(error.message).toBe("400: The request is invalid.");
  });

  it("reports an answer that is not a problem document as unexpected_response", async () => {
    const { fetch } = scripted(new Response("<html>bad gateway</html>", { status: 404 }));
    const error = await rejection(client(fetch).webhooks.get("whk_1"));
    expect(error).toMatchObject({ status: 404, code: "unexpected_response" });
    expect(error.detail).toContain("bad gateway");
  });
});

describe("backoffMs", () => {
  it("draws up to a doubling ceiling, capped, and never below Retry-After", () => {
    expect(backoffMs(0, null, () => 0)).toBe(0);
    expect(backoffMs(0, null, () => 0.999)).toBeLessThan(BASE_BACKOFF_MS);
    expect(backoffMs(2, null, () => 0.999)).toBeLessThan(4 * BASE_BACKOFF_MS);
    expect(backoffMs(2, null, () => 0.999)).toBeGreaterThanOrEqual(2 * BASE_BACKOFF_MS);
    expect(backoffMs(20, null, () => 0.999)).toBeLessThan(MAX_BACKOFF_MS);
    expect(backoffMs(0, 3, () => 0.5)).toBe(3000);
    expect(backoffMs(5, 1, () => 0.999)).toBeGreaterThan(1000);
  });
});
