import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MessageStatus, Repositories, Storage } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { expireMessages } from "./expire-messages.js";
import { getMessage, listMessageEvents } from "./get-message.js";
import { canAdvance } from "./lifecycle.js";
import { recordProviderReport } from "./provider-report.js";
import { SANDBOX_NUMBERS } from "./sandbox-provider.js";

const PHONE = "+14155552671";
const STATUSES: MessageStatus[] = ["sent", "delivered", "seen", "clicked", "failed", "expired"];
const ORDER: MessageStatus[] = ["sent", "delivered", "seen", "clicked"];

async function sentMessage(phone = PHONE) {
  const w = await sendWorld();
  const { campaign_id } = await w.campaign({ ttl_seconds: 60 });
  const { message_id } = (await w.send(sendBody(campaign_id, phone)))._unsafeUnwrap();
  const report = (status: Parameters<typeof recordProviderReport>[2]) =>
    recordProviderReport(w.deps, message_id, status);
  return { ...w, messageId: message_id, report };
}

describe("the lifecycle rule (docs/decisions.md Lifecycle)", () => {
  it("sent → delivered → seen → clicked only forward; failed and expired are final and only follow sent", () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.constantFrom(...STATUSES), (from, to) => {
        const final = (s: MessageStatus) => s === "failed" || s === "expired";
        const expected = final(from)
          ? false
          : final(to)
            ? from === "sent"
            : ORDER.indexOf(to) > ORDER.indexOf(from);
        expect(canAdvance(from, to)).toBe(expected);
      }),
    );
  });

  it("the sandbox's ordinary number reports delivered, then seen; clicked only when reported", async () => {
    const m = await sentMessage();
    expect(m.scheduler.pending).toBe(1);
    await m.scheduler.runNext();
    expect(await m.topics(m.messageId)).toEqual(["message.sent", "message.delivered"]);
    await m.scheduler.runAll();
    expect(await m.topics(m.messageId)).toEqual([
      "message.sent",
      "message.delivered",
      "message.seen",
    ]);
    await m.sandbox.report(m.messageId, "clicked");
    expect(await m.topics(m.messageId)).toEqual([
      "message.sent",
      "message.delivered",
      "message.seen",
      "message.clicked",
    ]);
    expect((await getMessage(m.deps, m.actor, m.messageId))._unsafeUnwrap().status).toBe("clicked");
  });

  it("a report that would go backwards or repeat is ignored, with no event", async () => {
    const m = await sentMessage();
    expect((await m.report("seen"))._unsafeUnwrap()).toMatchObject({
      applied: true,
      status: "seen",
    });
    for (const report of ["delivered", "seen"] as const) {
      expect((await m.report(report))._unsafeUnwrap()).toEqual({
        message_id: m.messageId,
        applied: false,
        status: "seen",
      });
    }
    expect(await m.topics(m.messageId)).toEqual(["message.sent", "message.seen"]);
  });

  it("failed is final: later reports are ignored; a delivered message can no longer fail", async () => {
    const failed = await sentMessage();
    expect((await failed.report("failed"))._unsafeUnwrap().status).toBe("failed");
    for (const report of ["delivered", "clicked", "expired"] as const) {
      expect((await failed.report(report))._unsafeUnwrap().applied).toBe(false);
    }
    expect(await failed.topics(failed.messageId)).toEqual(["message.sent", "message.failed"]);
    expect((await failed.storage.raw.message(failed.messageId))?.error).toEqual({
      code: "upstream_failed",
      message: "The upstream reported that the message could not be delivered.",
    });

    const delivered = await sentMessage();
    await delivered.report("delivered");
    expect((await delivered.report("failed"))._unsafeUnwrap()).toMatchObject({
      applied: false,
      status: "delivered",
    });
  });

  it("every applied report's event gets its outbox deliveries in the same transaction", async () => {
    const m = await sentMessage();
    await m.subscribeAll();
    await m.report("delivered");
    const deliveries = await m.storage.raw.deliveries();
    expect(deliveries.map((d) => d.topic)).toEqual(["message.delivered"]);
  });

  it("a report for an unknown message is message_not_found", async () => {
    const m = await sentMessage();
    const outcome = await recordProviderReport(
      m.deps,
      "0190a000-0000-7000-8000-000000000000",
      "seen",
    );
    expect(outcome._unsafeUnwrapErr()).toMatchObject({
      type: "not_found",
      code: "message_not_found",
    });
  });

  it("a move another writer made first is decided on the fresh row, in one write and no retry", async () => {
    const cases = [
      { report: "seen", outcome: { applied: true, status: "seen" } },
      { report: "delivered", outcome: { applied: false, status: "delivered" } },
    ] as const;
    for (const { report, outcome } of cases) {
      const m = await sentMessage();
      let writes = 0;
      const racing: Storage = {
        ...m.storage,
        transaction: (fn) =>
          m.storage.transaction((tx) => {
            const messages = {
              ...tx.messages,
              advance: async (...args: Parameters<Repositories["messages"]["advance"]>) => {
                writes += 1;
                // Another writer's `delivered` lands just before this report's write.
                await tx.messages.advance(m.messageId, ["sent"], {
                  status: "delivered",
                  updatedAt: "2026-05-01T12:00:00.500Z",
                });
                return tx.messages.advance(...args);
              },
            };
            return fn({ ...tx, messages });
          }),
      };
      const deps = { ...m.deps, storage: racing };
      const answer = await recordProviderReport(deps, m.messageId, report);
      expect(answer._unsafeUnwrap(), report).toMatchObject(outcome);
      expect(writes, report).toBe(1);
      expect((await m.storage.raw.message(m.messageId))?.status, report).toBe(outcome.status);
    }
  });

  it("the core lists a message's events in order; another organization sees 404", async () => {
    const m = await sentMessage();
    await m.scheduler.runAll();
    const events = (await listMessageEvents(m.deps, m.actor, m.messageId))._unsafeUnwrap();
    expect(events.map((e) => e.topic)).toEqual([
      "message.sent",
      "message.delivered",
      "message.seen",
    ]);
    const stranger = { organizationId: "org_other", apiKeyId: null };
    for (const id of [m.messageId, "not-a-uuid"]) {
      expect((await getMessage(m.deps, stranger, id))._unsafeUnwrapErr().type).toBe("not_found");
      expect((await listMessageEvents(m.deps, stranger, id))._unsafeUnwrapErr().type).toBe(
        "not_found",
      );
    }
  });
});

describe("expiry (issue 3: not delivered within the campaign's TTL → expired)", () => {
  it("the sweep expires a message still sent at its TTL with message.expired, not before", async () => {
    const m = await sentMessage(SANDBOX_NUMBERS.neverDelivered);
    expect(m.scheduler.pending).toBe(0);
    m.clock.advance(59_999);
    expect(await expireMessages(m.deps)).toBe(0);
    m.clock.advance(1);
    expect(await expireMessages(m.deps)).toBe(1);
    expect(await m.topics(m.messageId)).toEqual(["message.sent", "message.expired"]);
    expect((await m.storage.raw.message(m.messageId))?.status).toBe("expired");
    // Expired is final: a late delivery report is ignored, and a second sweep finds nothing.
    expect((await m.report("delivered"))._unsafeUnwrap().applied).toBe(false);
    expect(await expireMessages(m.deps)).toBe(0);
  });

  it("a delivered message never expires", async () => {
    const m = await sentMessage();
    await m.scheduler.runNext();
    m.clock.advance(120_000);
    expect(await expireMessages(m.deps)).toBe(0);
    expect((await m.storage.raw.message(m.messageId))?.status).toBe("delivered");
  });

  it("one sweep expires at most `limit` messages, the oldest first", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ ttl_seconds: 30 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      w.clock.advance(1);
      const sent = await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.neverDelivered));
      ids.push(sent._unsafeUnwrap().message_id);
    }
    w.clock.advance(60_000);
    expect(await expireMessages(w.deps, 2)).toBe(2);
    expect(await w.topics(ids[2]!)).toEqual(["message.sent"]);
    expect(await w.topics(ids[0]!)).toEqual(["message.sent", "message.expired"]);
    expect(await expireMessages(w.deps, 2)).toBe(1);
  });
});
