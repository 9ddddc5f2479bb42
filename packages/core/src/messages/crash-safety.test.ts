import { describe, expect, it } from "vitest";
import type { ChannelProvider, OutboundMessage } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { expireMessages } from "./expire-messages.js";
import { recordProviderReport } from "./provider-report.js";
import { SANDBOX_NUMBERS } from "./sandbox-provider.js";
import { sendMessage } from "./send-message.js";

const NEW_PHONE = "+14155552671";

describe("crash safety (docs/decisions.md: the message and its first event are stored in one transaction with the outbox)", () => {
  // The event's deliveries are stored by the same call as the event, after the routes' read.
  for (const method of ["messages.insert", "webhooks.list", "messages.insertEvent"]) {
    it(`a failure of ${method} fails the whole send and stores nothing, not even the new profile`, async () => {
      const w = await sendWorld();
      await w.subscribeAll();
      const { campaign_id } = await w.campaign();
      w.storage.failNext(method);
      await expect(w.send(sendBody(campaign_id, NEW_PHONE))).rejects.toThrow(method);
      expect(w.sandbox.dispatched).toEqual([]);
      // Every `sent` message would be listed as due this far in the future: there is none.
      expect(await w.storage.messages.listExpired("2100-01-01T00:00:00.000Z", 10)).toEqual([]);
      expect(await w.storage.raw.deliveries()).toEqual([]);
      expect(await w.storage.profiles.findByPhone(w.actor.organizationId, NEW_PHONE)).toBeNull();
      // The storage works again, and the retried send stores message, event and delivery.
      const { message_id } = (await w.send(sendBody(campaign_id, NEW_PHONE)))._unsafeUnwrap();
      expect(await w.topics(message_id)).toEqual(["message.sent"]);
      expect((await w.storage.raw.deliveries()).map((d) => d.messageId)).toEqual([message_id]);
    });
  }

  it("when the upstream receives the message, its row, message.sent and outbox delivery are already committed", async () => {
    const w = await sendWorld();
    await w.subscribeAll();
    const seenAtHandOff: unknown[] = [];
    // The provider reads the committed state the moment it is handed the message: anything
    // that happens from here on (a crash, a lost response) cannot take these rows back.
    const observing: ChannelProvider = {
      name: "observing",
      dispatch: async (message: OutboundMessage) => {
        seenAtHandOff.push({
          status: (await w.storage.raw.message(message.messageId))?.status,
          topics: (await w.storage.raw.events(message.messageId)).map((e) => e.topic),
          deliveries: (await w.storage.raw.deliveries()).map((d) => d.topic),
        });
        return { status: "accepted" };
      },
    };
    const { campaign_id } = await w.campaign();
    const deps = { ...w.deps, provider: observing };
    (await sendMessage(deps, w.actor, sendBody(campaign_id, NEW_PHONE)))._unsafeUnwrap();
    expect(seenAtHandOff).toEqual([
      { status: "sent", topics: ["message.sent"], deliveries: ["message.sent"] },
    ]);
  });

  it("a crash between the hand-off and the response loses no event", async () => {
    // Simulated: the upstream refuses, and the storage fails while the core records the
    // refusal, so sendMessage rejects (the client would see a 500, as if the process had died
    // after the hand-off). What was committed before the hand-off must survive intact, the
    // failed write must leave no half state, and the message must still reach an end.
    const w = await sendWorld();
    await w.subscribeAll();
    const { campaign_id } = await w.campaign({ ttl_seconds: 60 });
    const crashing: ChannelProvider = {
      name: "crashing",
      dispatch: async (message) => {
        const result = await w.sandbox.dispatch(message);
        w.storage.failNext("messages.insertEvent");
        return result;
      },
    };
    const crashed = { ...w.deps, provider: crashing };
    const failure = await sendMessage(
      crashed,
      w.actor,
      sendBody(campaign_id, SANDBOX_NUMBERS.rejected),
    ).then(
      () => null,
      (error: unknown) => error as Error & { cause?: Error },
    );
    // The error says the message was stored, not that nothing changed.
    expect(failure?.message).toMatch(
      /^Message [0-9a-f-]{36} was stored, but recording its hand-off/,
    );
    expect(failure?.cause?.message).toContain("messages.insertEvent");

    const [handedOff] = w.sandbox.dispatched;
    const messageId = handedOff!.messageId;
    expect(await w.storage.raw.message(messageId)).toMatchObject({ status: "sent" });
    expect(await w.topics(messageId)).toEqual(["message.sent"]);
    expect((await w.storage.raw.deliveries()).map((d) => d.topic)).toEqual(["message.sent"]);

    // After a restart, the sweep ends the message at its TTL, with its event and delivery.
    w.clock.advance(60_000);
    expect(await expireMessages(w.deps)).toBe(1);
    expect(await w.topics(messageId)).toEqual(["message.sent", "message.expired"]);
    expect((await w.storage.raw.deliveries()).map((d) => d.topic)).toEqual([
      "message.sent",
      "message.expired",
    ]);
  });

  it("a hand-off that ends in a transport error is failed for good: late upstream reports cannot revive it", async () => {
    // The upstream may or may not have the message; Tidings never hands it over twice (at most
    // once) and reports it failed, so the client can decide to send again.
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const crashing: ChannelProvider = {
      name: "crashing",
      dispatch: async (message) => {
        await w.sandbox.dispatch(message);
        throw new Error("connection reset after the upstream took the message");
      },
    };
    const result = (
      await sendMessage(
        { ...w.deps, provider: crashing },
        w.actor,
        sendBody(campaign_id, NEW_PHONE),
      )
    )._unsafeUnwrap();
    expect(result.status).toBe("failed");
    await w.scheduler.runAll();
    expect(await w.topics(result.message_id)).toEqual(["message.sent", "message.failed"]);
    expect(
      (await recordProviderReport(w.deps, result.message_id, "delivered"))._unsafeUnwrap().applied,
    ).toBe(false);
  });
});
