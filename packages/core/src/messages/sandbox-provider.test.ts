import { describe, expect, it } from "vitest";
import type { Channel, OutboundMessage, ProviderReport } from "../ports.js";
import { manualScheduler } from "../testing/message-kit.js";
import { SANDBOX_NUMBERS, sandboxProvider } from "./sandbox-provider.js";

const outbound = (phoneNumber: string, channel: Channel = "viber"): OutboundMessage => ({
  messageId: `m-${phoneNumber}-${channel}`,
  channel,
  sender: "Tidings",
  phoneNumber,
  body: "Hello",
  category: "transactional",
  ttlSeconds: 60,
});

function sandbox() {
  const scheduler = manualScheduler();
  const delays: number[] = [];
  const provider = sandboxProvider({
    delayMs: 250,
    scheduler: {
      schedule: (run, delayMs) => {
        delays.push(delayMs);
        return scheduler.schedule(run, delayMs);
      },
    },
  });
  const reports: Array<[string, ProviderReport]> = [];
  provider.onReport(async (messageId, report) => {
    reports.push([messageId, report]);
  });
  return { provider, scheduler, reports, delays };
}

describe("the sandbox provider (issue 3 item 5)", () => {
  it("+15005550001: the upstream refuses at once", async () => {
    const { provider, scheduler } = sandbox();
    for (const channel of ["viber", "sms"] as const) {
      expect(await provider.dispatch(outbound(SANDBOX_NUMBERS.rejected, channel))).toEqual({
        status: "rejected",
        error: { code: "upstream_rejected", message: "The upstream refused the message." },
      });
    }
    expect(scheduler.pending).toBe(0);
  });

  it("+15005550002: not a Viber user, but SMS accepts it and delivers", async () => {
    const { provider, scheduler, reports } = sandbox();
    expect(await provider.dispatch(outbound(SANDBOX_NUMBERS.notOnViber))).toMatchObject({
      status: "not_on_channel",
      error: { code: "not_on_viber" },
    });
    expect(scheduler.pending).toBe(0);
    const sms = outbound(SANDBOX_NUMBERS.notOnViber, "sms");
    expect(await provider.dispatch(sms)).toEqual({ status: "accepted" });
    await scheduler.runAll();
    expect(reports).toEqual([
      [sms.messageId, "delivered"],
      [sms.messageId, "seen"],
    ]);
  });

  it("+15005550003: accepted and never delivered", async () => {
    const { provider, scheduler } = sandbox();
    expect(await provider.dispatch(outbound(SANDBOX_NUMBERS.neverDelivered))).toEqual({
      status: "accepted",
    });
    expect(scheduler.pending).toBe(0);
  });

  it("any other number: delivered after the delay, seen after another, never clicked by itself", async () => {
    const { provider, scheduler, reports, delays } = sandbox();
    const message = outbound("+14155552671");
    expect(await provider.dispatch(message)).toEqual({ status: "accepted" });
    await scheduler.runAll();
    expect(reports).toEqual([
      [message.messageId, "delivered"],
      [message.messageId, "seen"],
    ]);
    expect(delays).toEqual([250, 250]);
    await provider.report(message.messageId, "clicked");
    expect(reports.at(-1)).toEqual([message.messageId, "clicked"]);
  });

  it("remembers only the latest keepDispatched hand-offs, oldest first", async () => {
    const provider = sandboxProvider({
      keepDispatched: 2,
      scheduler: { schedule: () => ({ cancel: () => {} }) },
    });
    for (const phone of ["+14155552671", "+14155552672", "+14155552673"]) {
      await provider.dispatch(outbound(phone));
    }
    expect(provider.dispatched.map((m) => m.phoneNumber)).toEqual(["+14155552672", "+14155552673"]);
  });

  it("the default delay is one second; a hand-off is remembered", async () => {
    const delays: number[] = [];
    const provider = sandboxProvider({
      scheduler: {
        schedule: (_run, delayMs) => {
          delays.push(delayMs);
          return { cancel: () => {} };
        },
      },
    });
    await provider.dispatch(outbound("+14155552671"));
    expect(delays).toEqual([1000]);
    expect(provider.dispatched.map((m) => m.phoneNumber)).toEqual(["+14155552671"]);
  });

  it("close() drops pending reports and refuses further hand-offs", async () => {
    const { provider, scheduler, reports } = sandbox();
    await provider.dispatch(outbound("+14155552671"));
    await provider.close();
    expect(scheduler.pending).toBe(0);
    await scheduler.runAll();
    expect(reports).toEqual([]);
    await expect(provider.dispatch(outbound("+14155552671"))).rejects.toThrow(/closed/);
  });

  it("a report without a registered sink rejects; a failing sink goes to onError", async () => {
    await expect(sandboxProvider().report("m-1", "seen")).rejects.toThrow(/sink/);
    const scheduler = manualScheduler();
    const errors: unknown[] = [];
    const provider = sandboxProvider({ scheduler, onError: (error) => errors.push(error) });
    provider.onReport(async () => {
      throw new Error("storage down");
    });
    await provider.dispatch(outbound("+14155552671"));
    await scheduler.runAll();
    expect(errors).toEqual([new Error("storage down")]);
    // The chain stops at the failed report: `seen` is never scheduled after it.
    expect(scheduler.pending).toBe(0);
  });
});
