import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../deps.js";
import type { StoredResponse } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { memoryStorage } from "../testing/memory/index.js";
import { canonicalJson, requestHash } from "./request-hash.js";
import { type Checkpoint, withIdempotency } from "./with-idempotency.js";

const ENDPOINT = "POST /v1/messages/send";
const BODY = { campaign_id: "cmp_1", recipient: { type: "phone_number", value: "+14155552671" } };
const REQUEST = { apiKeyId: "key_a", endpoint: ENDPOINT, key: "k-1", requestBody: BODY };

function setup() {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const deps = { storage, clock, config: defaultConfig };
  let runs = 0;
  const answer =
    (status = 200): (() => Promise<StoredResponse>) =>
    async () => {
      runs += 1;
      return { status, body: JSON.stringify({ run: runs }), headers: { "x-run": String(runs) } };
    };
  const call = (
    run: (checkpoint: Checkpoint) => Promise<StoredResponse> = answer(),
    overrides: Partial<{
      key: string;
      requestBody: unknown;
      apiKeyId: string;
      endpoint: string;
    }> = {},
  ) => withIdempotency(deps, { ...REQUEST, ...overrides }, run);
  /** The same request again, which must answer from `recover` rather than run again. */
  const recoverWith = (recover: (point: string) => Promise<StoredResponse>) =>
    withIdempotency(
      deps,
      REQUEST,
      async () => {
        throw new Error("must not run again");
      },
      recover,
    );
  return { clock, storage, deps, call, answer, recoverWith, runs: () => runs };
}

describe("Idempotency-Key (docs/decisions.md Idempotency)", () => {
  it("the same key and body within 24 h replays the stored answer and runs nothing", async () => {
    const { call, runs, clock } = setup();
    const first = (await call())._unsafeUnwrap();
    expect(first).toEqual({
      response: { status: 200, body: '{"run":1}', headers: { "x-run": "1" } },
      replayed: false,
    });
    clock.advance(24 * 60 * 60 * 1000 - 1);
    const again = (await call())._unsafeUnwrap();
    expect(again).toEqual({ response: first.response, replayed: true });
    expect(runs()).toBe(1);
  });

  it("after 24 h the key is forgotten and the request runs again", async () => {
    const { call, runs, clock } = setup();
    await call();
    clock.advance(24 * 60 * 60 * 1000);
    expect((await call())._unsafeUnwrap().replayed).toBe(false);
    expect(runs()).toBe(2);
  });

  it("the same key with a different body is 422 idempotency_key_reused", async () => {
    const { call, runs } = setup();
    await call();
    const error = (
      await call(undefined, { requestBody: { ...BODY, campaign_id: "cmp_2" } })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "idempotency_mismatch", code: "idempotency_key_reused" });
    expect(runs()).toBe(1);
  });

  it("the body is compared by meaning: key order does not matter", async () => {
    const { call, runs } = setup();
    await call();
    const reordered = {
      recipient: { value: "+14155552671", type: "phone_number" },
      campaign_id: "cmp_1",
    };
    expect((await call(undefined, { requestBody: reordered }))._unsafeUnwrap().replayed).toBe(true);
    expect(runs()).toBe(1);
  });

  it("while the first request still runs, the same key is 409 idempotency_in_progress", async () => {
    const { call, answer } = setup();
    let finish: () => void = () => {};
    const slow = call(
      () =>
        new Promise<StoredResponse>((resolve) => {
          finish = () => void answer()().then(resolve);
        }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect((await call())._unsafeUnwrapErr()).toMatchObject({
      type: "conflict",
      code: "idempotency_in_progress",
    });
    finish();
    expect((await slow)._unsafeUnwrap().replayed).toBe(false);
    expect((await call())._unsafeUnwrap().replayed).toBe(true);
  });

  it("401, 403, 429 and 5xx answers are not stored: the key can be used again", async () => {
    for (const status of [401, 403, 429, 500, 503]) {
      const { call, answer, runs } = setup();
      expect((await call(answer(status)))._unsafeUnwrap().response.status).toBe(status);
      expect((await call(answer(200)))._unsafeUnwrap()).toMatchObject({
        replayed: false,
        response: { status: 200 },
      });
      expect(runs()).toBe(2);
    }
  });

  it("4xx validation answers are stored and replayed like successes", async () => {
    const { call, answer, runs } = setup();
    await call(answer(400));
    expect((await call(answer(200)))._unsafeUnwrap()).toMatchObject({
      replayed: true,
      response: { status: 400 },
    });
    expect(runs()).toBe(1);
  });

  it("a run that throws releases the key and the error propagates", async () => {
    const { call, runs } = setup();
    await expect(call(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect((await call())._unsafeUnwrap().replayed).toBe(false);
    expect(runs()).toBe(1);
  });

  it("keys are scoped to (API key, endpoint)", async () => {
    const { call, runs } = setup();
    await call();
    expect((await call(undefined, { apiKeyId: "key_b" }))._unsafeUnwrap().replayed).toBe(false);
    expect(
      (await call(undefined, { endpoint: "POST /v1/profiles" }))._unsafeUnwrap().replayed,
    ).toBe(false);
    expect(runs()).toBe(3);
  });

  it("a request whose process died holds its key (409) for idempotencyLockMs; then a retry runs it", async () => {
    const { call, runs, clock, answer } = setup();
    // The first request never answers: its process died mid-way, before its work committed.
    void call(() => new Promise<StoredResponse>(() => undefined));
    await Promise.resolve();
    clock.advance(defaultConfig.idempotencyLockMs - 1);
    expect((await call())._unsafeUnwrapErr()).toMatchObject({ code: "idempotency_in_progress" });
    clock.advance(1);
    const retried = (await call(answer()))._unsafeUnwrap();
    expect(retried).toEqual({
      response: { status: 200, body: '{"run":1}', headers: { "x-run": "1" } },
      replayed: false,
    });
    expect(runs()).toBe(1);
    expect((await call())._unsafeUnwrap()).toEqual({ response: retried.response, replayed: true });
  });

  it("a retry of a request that died after its work committed answers from its recovery point and runs nothing", async () => {
    const { call, runs, clock, storage, recoverWith } = setup();
    void call(async (checkpoint) => {
      await storage.transaction((tx) => checkpoint(tx, "message:m-1"));
      return new Promise<StoredResponse>(() => undefined);
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    clock.advance(defaultConfig.idempotencyLockMs);
    const recovered: string[] = [];
    const recover = async (point: string): Promise<StoredResponse> => {
      recovered.push(point);
      return { status: 200, body: `{"recovered":"${point}"}`, headers: {} };
    };
    const retried = await recoverWith(recover);
    expect(retried._unsafeUnwrap()).toEqual({
      response: { status: 200, body: '{"recovered":"message:m-1"}', headers: {} },
      replayed: true,
    });
    expect(recovered).toEqual(["message:m-1"]);
    expect(runs()).toBe(0);
    // The recovered answer is stored like any other.
    expect((await call())._unsafeUnwrap().response.body).toBe('{"recovered":"message:m-1"}');
  });

  it("a request that ran past its lock cannot commit once a retry resumed its key", async () => {
    const { call, clock, storage, answer } = setup();
    let proceed: () => void = () => undefined;
    const late = call(async (checkpoint) => {
      await new Promise<void>((resolve) => {
        proceed = resolve;
      });
      await storage.transaction((tx) => checkpoint(tx, "message:late"));
      return { status: 200, body: "{}", headers: {} };
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    clock.advance(defaultConfig.idempotencyLockMs);
    const retried = (await call(answer()))._unsafeUnwrap();
    proceed();
    // Its work rolled back with the refused checkpoint; it answers 409 like any concurrent use.
    expect((await late)._unsafeUnwrapErr()).toMatchObject({ code: "idempotency_in_progress" });
    // The late request's failure did not release the retry's answer.
    expect((await call())._unsafeUnwrap()).toEqual({ response: retried.response, replayed: true });
  });

  it("a run that fails after its work committed keeps the key: a retry after the lock answers from the recovery point", async () => {
    const { call, clock, storage, recoverWith } = setup();
    const failing = call(async (checkpoint) => {
      await storage.transaction((tx) => checkpoint(tx, "message:stored"));
      throw new Error("recording the hand-off failed");
    });
    await expect(failing).rejects.toThrow(/hand-off/);
    // Released, a retry would have run the send again; held, it waits for the lock to end.
    expect((await call())._unsafeUnwrapErr()).toMatchObject({ code: "idempotency_in_progress" });
    clock.advance(defaultConfig.idempotencyLockMs);
    const retried = await recoverWith(async (point) => ({
      status: 200,
      body: `{"recovered":"${point}"}`,
      headers: {},
    }));
    expect(retried._unsafeUnwrap().response.body).toBe('{"recovered":"message:stored"}');
  });

  it("a 5xx answer after the work committed keeps the key held too", async () => {
    const { call, clock, storage, answer, runs } = setup();
    const first = await call(async (checkpoint) => {
      await storage.transaction((tx) => checkpoint(tx, "message:stored"));
      return { status: 502, body: "{}", headers: {} };
    });
    expect(first._unsafeUnwrap().response.status).toBe(502);
    expect((await call(answer()))._unsafeUnwrapErr()).toMatchObject({
      code: "idempotency_in_progress",
    });
    clock.advance(defaultConfig.idempotencyLockMs);
    // Without a way to recover, the resumed key runs the request.
    expect((await call(answer()))._unsafeUnwrap().replayed).toBe(false);
    expect(runs()).toBe(1);
  });

  it("a key is 1 to 255 printable ASCII characters, else 400 at Idempotency-Key", async () => {
    const { call, runs } = setup();
    for (const key of ["", "x".repeat(256), "clé", "a\nb", "tab\there"]) {
      const error = (await call(undefined, { key }))._unsafeUnwrapErr();
      expect(error).toMatchObject({
        type: "validation",
        issues: [{ path: "Idempotency-Key", rule: "idempotency_key" }],
      });
    }
    expect((await call(undefined, { key: "~".repeat(255) })).isOk()).toBe(true);
    expect(runs()).toBe(1);
  });

  it("the request hash is the same for equal JSON values whatever their key order", () => {
    const shuffled = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(shuffled);
      if (typeof value === "object" && value !== null) {
        return Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, shuffled(v)]),
        );
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(requestHash(shuffled(value))).toBe(requestHash(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
