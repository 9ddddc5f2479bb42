import type {
  DispatchResult,
  InProcessReportingProvider,
  OutboundMessage,
  ProviderReport,
} from "@tidings/core";

export interface ConsoleSmsProviderOptions {
  /** Where the "gateway" writes each message (stdout in the demo). */
  write(line: string): void;
  /** Numbers the gateway refuses (its do-not-text list), in E.164. */
  blocked?: readonly string[] | undefined;
  /** When the gateway's delivery receipt arrives, after the hand-off (ms). */
  receiptAfterMs?: number | undefined;
}

/**
 * A custom `ChannelProvider`: an SMS-only "gateway" that prints each message. It shows the
 * three answers a provider can give and how lifecycle reports flow back:
 * - Viber messages are `not_on_channel`, so the core falls back to SMS when the campaign and
 *   the recipient's consent allow it, and fails the message otherwise;
 * - numbers on the gateway's do-not-text list are `rejected`;
 * - everything else is `accepted`, and a "delivery receipt" reports `delivered` later.
 */
export function consoleSmsProvider(options: ConsoleSmsProviderOptions): InProcessReportingProvider {
  const receiptAfterMs = options.receiptAfterMs ?? 100;
  const blocked = new Set(options.blocked ?? []);
  let sink: ((messageId: string, report: ProviderReport) => Promise<void>) | null = null;
  const timers = new Set<NodeJS.Timeout>();

  return {
    name: "console-sms",
    async dispatch(message: OutboundMessage): Promise<DispatchResult> {
      if (message.channel !== "sms") {
        return {
          status: "not_on_channel",
          error: { code: "sms_only", message: "This gateway only sends SMS." },
        };
      }
      if (blocked.has(message.phoneNumber)) {
        return {
          status: "rejected",
          error: {
            code: "do_not_text",
            message: "The number is on the gateway's do-not-text list.",
          },
        };
      }
      options.write(`SMS from ${message.sender} to ${message.phoneNumber}: ${message.body}`);
      // A real gateway calls back (webhook, queue); here a timer stands in for its receipt.
      const timer = setTimeout(() => {
        timers.delete(timer);
        sink?.(message.messageId, "delivered").catch((error: unknown) =>
          options.write(`report failed: ${String(error)}`),
        );
      }, receiptAfterMs);
      timers.add(timer);
      return { status: "accepted" };
    },
    onReport(reportSink) {
      sink = reportSink;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
