import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { infobipCallbacks } from "./callback-handler.js";
import { callbackKey, legToken } from "./callback-token.js";

const SECRET = new Uint8Array(32).fill(9);
const key = callbackKey(SECRET);

async function world(channel: "viber" | "sms" = "viber") {
  const clock = manualClock();
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const org = await seedOrganization(storage);
  const { message } = await seedMessage(storage, org, {
    channel,
    ...(channel === "viber"
      ? { viberProvider: "infobip", smsProvider: null }
      : { smsProvider: "infobip" }),
  });
  clock.set(Date.parse(message.createdAt) + 1000);
  const logs: string[] = [];
  const log = (msg: string, fields?: Record<string, unknown>) => {
    logs.push(`${msg} ${JSON.stringify(fields ?? {})}`);
  };
  const app = infobipCallbacks({
    deps,
    secretKey: SECRET,
    logger: { error: log, warn: log, info: log },
  });
  const legId = channel === "viber" ? message.id : `${message.id}.sms`;
  const post = (
    kind: string,
    results: unknown[],
    options: { leg?: string; token?: string } = {},
  ) => {
    const leg = options.leg ?? legId;
    return app.handle({
      method: "POST",
      url: `/${leg}.${options.token ?? legToken(key, leg)}/${kind}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ results }),
    });
  };
  const dlr = (groupName: string, extra: Record<string, unknown> = {}, messageId = legId) => ({
    messageId,
    status: {
      groupName,
      name: groupName === "DELIVERED" ? "DELIVERED_TO_HANDSET" : `${groupName}_X`,
      description: groupName,
    },
    error: { id: 0, name: "NO_ERROR" },
    ...extra,
  });
  const topics = async () => (await storage.raw.events(message.id)).map((e) => e.topic);
  return { storage, message, post, dlr, topics, logs, legId };
}

describe("Infobip delivery and seen reports", () => {
  it("DELIVERED then a seen report: message.delivered and message.seen; 200 with an empty body", async () => {
    const w = await world();
    const delivered = await w.post("delivery", [w.dlr("DELIVERED")]);
    expect([delivered.status, delivered.body]).toEqual([200, ""]);
    const seen = await w.post("seen", [
      { messageId: w.legId, seenAt: "2026-01-01T00:00:10.000+0000" },
    ]);
    expect(seen.status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered", "message.seen"]);
  });

  it("UNDELIVERABLE fails the message with Infobip's error name as the code", async () => {
    const w = await world();
    await w.post("delivery", [
      w.dlr("UNDELIVERABLE", {
        error: { id: 7002, name: "EC_UNKNOWN_USER", description: "User is unknown" },
      }),
    ]);
    expect((await w.storage.raw.message(w.message.id))?.error).toMatchObject({
      code: "upstream_failed",
      provider: "infobip",
      provider_code: "EC_UNKNOWN_USER",
    });
  });

  it("DELIVERED_TO_OPERATOR is intermediate: a later UNDELIVERABLE still fails the message", async () => {
    const w = await world();
    const operator = w.dlr("DELIVERED", {
      status: { groupName: "DELIVERED", id: 2, name: "DELIVERED_TO_OPERATOR" },
    });
    expect((await w.post("delivery", [operator])).status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent"]);
    await w.post("delivery", [w.dlr("UNDELIVERABLE")]);
    expect(await w.topics()).toEqual(["message.sent", "message.failed"]);
  });

  it("a duplicate refusal reported for a retry (idempotent sending) changes nothing", async () => {
    const w = await world();
    const duplicate = w.dlr("REJECTED", {
      status: { groupName: "REJECTED", id: 23, name: "REJECTED_DUPLICATE_MESSAGE_ID" },
    });
    expect((await w.post("delivery", [duplicate])).status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent"]);
    await w.post("delivery", [w.dlr("DELIVERED")]);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
  });

  it("EXPIRED expires the message; PENDING changes nothing", async () => {
    const w = await world();
    await w.post("delivery", [w.dlr("PENDING")]);
    await w.post("delivery", [w.dlr("EXPIRED")]);
    expect(await w.topics()).toEqual(["message.sent", "message.expired"]);
  });

  it("a wrong or missing token, or another leg's token: 404 and nothing changes, token never logged", async () => {
    const w = await world();
    const wrong = "A".repeat(22);
    expect((await w.post("delivery", [w.dlr("DELIVERED")], { token: wrong })).status).toBe(404);
    const other = `${w.message.id}.sms`;
    const borrowed = await w.post("delivery", [w.dlr("DELIVERED")], {
      leg: w.legId,
      token: legToken(key, other),
    });
    expect(borrowed.status).toBe(404);
    const app = await w.post("delivery", [w.dlr("DELIVERED")], { token: "short" });
    expect(app.status).toBe(404);
    expect(await w.topics()).toEqual(["message.sent"]);
    expect(w.logs.join("\n")).not.toContain(legToken(key, w.legId));
  });

  it("a batch applies one by one; a report about another leg is ignored and logged", async () => {
    const w = await world();
    const answer = await w.post("delivery", [
      w.dlr("UNDELIVERABLE", {}, "someone-else"),
      w.dlr("DELIVERED"),
      w.dlr("DELIVERED"),
    ]);
    expect(answer.status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
    expect(w.logs.join("\n")).toMatch(/another leg/);
  });

  it("entries that are not reports are skipped, and odd field types stored as nothing: 200", async () => {
    const w = await world();
    const answer = await w.post("delivery", [null, 7, [], w.dlr("DELIVERED"), null]);
    expect(answer.status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
    const v = await world();
    const odd = v.dlr("UNDELIVERABLE", {
      status: { groupName: "UNDELIVERABLE", name: 5, description: { toString: 1 } },
      error: { id: 1, name: { a: 1 }, description: { toString: 1 } },
    });
    expect((await v.post("delivery", [odd])).status).toBe(200);
    expect((await v.storage.raw.message(v.message.id))?.error).toMatchObject({
      code: "upstream_failed",
      provider_code: null,
    });
  });

  it("a report of the Viber leg after the message moved to SMS changes nothing", async () => {
    const w = await world("viber");
    await w.storage.messages.transition(w.message.id, "sent", {
      status: "sent",
      channel: "sms",
      error: null,
      updatedAt: w.message.updatedAt,
    });
    await w.post("delivery", [w.dlr("UNDELIVERABLE")]);
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("an SMS leg's reports apply to an SMS message", async () => {
    const w = await world("sms");
    await w.post("delivery", [w.dlr("DELIVERED")]);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
  });

  it("storage failing answers 503 so Infobip retries", async () => {
    const w = await world();
    w.storage.messages.getById = async () => {
      throw new Error("down");
    };
    const answer = await w.post("delivery", [w.dlr("DELIVERED")]);
    expect([answer.status, answer.headers["retry-after"]]).toEqual([503, "5"]);
  });

  it("any sequence of reports leaves the lifecycle forward only, each event at most once", async () => {
    const groups = ["PENDING", "DELIVERED", "UNDELIVERABLE", "REJECTED", "EXPIRED", "SEEN"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...groups), { minLength: 1, maxLength: 3 }), {
          maxLength: 6,
        }),
        async (batches) => {
          const w = await world();
          for (const batch of batches) {
            const seen = batch.filter((g) => g === "SEEN");
            const reports = batch.filter((g) => g !== "SEEN").map((g) => w.dlr(g));
            if (reports.length > 0) expect((await w.post("delivery", reports)).status).toBe(200);
            if (seen.length > 0) {
              expect((await w.post("seen", [{ messageId: w.legId }])).status).toBe(200);
            }
          }
          const topics = await w.topics();
          expect(new Set(topics).size).toBe(topics.length);
          const order = ["message.sent", "message.delivered", "message.seen"];
          const progress = topics.filter((t) => order.includes(t)).map((t) => order.indexOf(t));
          expect(progress).toEqual([...progress].sort());
          const ends = topics.filter((t) => t === "message.failed" || t === "message.expired");
          expect(ends.length).toBeLessThanOrEqual(1);
          if (ends.length === 1) expect(topics.at(-1)).toBe(ends[0]);
        },
      ),
      { numRuns: 50 },
    );
  });
});
