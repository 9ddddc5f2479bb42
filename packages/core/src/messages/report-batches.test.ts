import { describe, expect, it } from "vitest";
import type { Repositories, Storage } from "../ports.js";
import { StorageUnavailableError } from "../support/storage-faults.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { batchedProviderReports } from "./report-batches.js";

/** A world with `count` sent messages, and its storage counting the transactions begun. */
async function sentMessages(count: number) {
  const w = await sendWorld();
  await w.subscribeAll();
  const { campaign_id } = await w.campaign({ ttl_seconds: 60 });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const phone = `+1415555${String(2600 + i)}`;
    ids.push((await w.send(sendBody(campaign_id, phone)))._unsafeUnwrap().message_id);
  }
  let transactions = 0;
  /** What the next transaction's callback throws partway, once. */
  let failNext: unknown;
  const storage: Storage = {
    ...w.storage,
    transaction: (fn) => {
      transactions += 1;
      const failure = failNext;
      failNext = undefined;
      return w.storage.transaction(async (tx: Repositories) => {
        const result = await fn(tx);
        if (failure !== undefined) throw failure;
        return result;
      });
    },
  };
  const deps = { ...w.deps, storage };
  return {
    ...w,
    ids,
    deps,
    transactions: () => transactions,
    failNextTransaction: (error: unknown) => {
      failNext = error;
    },
  };
}

describe("batchedProviderReports", () => {
  it("reports asked for in one turn share one transaction, and each gets its own outcome", async () => {
    const w = await sentMessages(3);
    const record = batchedProviderReports(w.deps);
    const [a, b, c] = w.ids as [string, string, string];
    const before = w.transactions();
    const outcomes = await Promise.all([
      record(a, "delivered"),
      record(b, "seen"),
      record(c, "delivered"),
      // Unknown: refused on its own, the others applied.
      record("01a21e1e-0000-7000-8000-000000000000", "delivered"),
    ]);
    expect(w.transactions() - before).toBe(1);
    expect(outcomes.map((outcome) => outcome.isOk() && outcome.value)).toEqual([
      { message_id: a, applied: true, status: "delivered" },
      { message_id: b, applied: true, status: "seen" },
      { message_id: c, applied: true, status: "delivered" },
      false,
    ]);
    expect(outcomes[3]?._unsafeUnwrapErr()).toMatchObject({ code: "message_not_found" });
    // Each applied report recorded its event and one delivery, as alone.
    expect(await w.topics(b)).toEqual(["message.sent", "message.seen"]);
    const again = await Promise.all([record(b, "delivered"), record(a, "delivered")]);
    expect(again.map((outcome) => outcome._unsafeUnwrap().applied)).toEqual([false, false]);
  });

  it("a batch whose transaction fails is recorded report by report; storage being unavailable is told to each", async () => {
    const w = await sentMessages(2);
    const record = batchedProviderReports(w.deps);
    const [a, b] = w.ids as [string, string];
    w.failNextTransaction(new Error("a row that cannot be read"));
    const outcomes = await Promise.all([record(a, "delivered"), record(b, "delivered")]);
    expect(outcomes.map((outcome) => outcome._unsafeUnwrap().applied)).toEqual([true, true]);
    expect(await w.topics(a)).toEqual(["message.sent", "message.delivered"]);

    const down = new StorageUnavailableError("unreachable", "unknown", {
      cause: new Error("connection lost"),
    });
    w.failNextTransaction(down);
    const refused = await Promise.allSettled([record(a, "seen"), record(b, "seen")]);
    expect(refused.map((settled) => settled.status === "rejected" && settled.reason)).toEqual([
      down,
      down,
    ]);
    // Offered again, as the provider does: recorded once.
    const retried = await Promise.all([record(a, "seen"), record(b, "seen")]);
    expect(retried.map((outcome) => outcome._unsafeUnwrap().applied)).toEqual([true, true]);
    expect(await w.topics(a)).toEqual(["message.sent", "message.delivered", "message.seen"]);
  });

  it("splits at maxBatch", async () => {
    const w = await sentMessages(5);
    const record = batchedProviderReports(w.deps, { maxBatch: 2 });
    const before = w.transactions();
    await Promise.all(w.ids.map((id) => record(id, "delivered")));
    expect(w.transactions() - before).toBe(3);
  });
});
