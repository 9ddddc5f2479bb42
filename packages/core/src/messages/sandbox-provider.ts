import type {
  DispatchResult,
  InProcessReportingProvider,
  OutboundMessage,
  ProviderReport,
} from "../ports.js";
import { StorageBusyError } from "../support/storage-busy.js";
import { isStorageUnavailable } from "../support/storage-faults.js";

/** The sandbox's magic numbers: each drives one path of the lifecycle. */
export const SANDBOX_NUMBERS = {
  /** The upstream refuses at once: a `failed` result and `message.failed`. */
  rejected: "+15005550001",
  /** Not a Viber user: falls back to SMS when the message may, else fails. SMS accepts it. */
  notOnViber: "+15005550002",
  /** Accepted and never delivered, so it expires at the TTL. */
  neverDelivered: "+15005550003",
} as const;

/** A cancellable timer; injectable so tests fire the reports when they choose. */
export interface SandboxScheduler {
  schedule(run: () => void, delayMs: number): { cancel(): void };
}

export interface SandboxProviderOptions {
  /** Delay before `delivered`, and again before `seen` (default 1000 ms). */
  delayMs?: number | undefined;
  /** Timers; the default uses `setTimeout`, unref'ed so it never keeps the process alive. */
  scheduler?: SandboxScheduler | undefined;
  /**
   * Told when the report sink rejects for any reason but storage (the sandbox itself has
   * nowhere to log). A report the sink could not store because storage was unavailable or busy
   * is kept and offered again every `retryMs`, until it is stored or the sandbox closes.
   */
  onError?: ((error: unknown) => void) | undefined;
  /** How long a report that could not be stored waits before it is offered again (1000 ms). */
  retryMs?: number | undefined;
  /**
   * How many of the latest dispatched messages `dispatched` keeps (default 1,000), so a server
   * left running on the sandbox does not keep every message it ever sent.
   */
  keepDispatched?: number | undefined;
}

/** The bundled development and test provider. */
export interface SandboxProvider extends InProcessReportingProvider {
  /** Feeds a report as if the upstream sent it (tests and the HTTP `/sandbox` route). */
  report(messageId: string, report: ProviderReport): Promise<void>;
  /** The latest messages handed over (`keepDispatched` of them at most), oldest first. */
  readonly dispatched: readonly OutboundMessage[];
  close(): Promise<void>;
}

/** A failure to store a report that says nothing of the report itself: it will store later. */
const isStorageFault = (error: unknown): boolean =>
  isStorageUnavailable(error) ||
  error instanceof StorageBusyError ||
  (error instanceof Error && error.name === "StorageBusyError");

const realScheduler: SandboxScheduler = {
  schedule(run, delayMs) {
    const timer = setTimeout(run, delayMs);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

const NOT_ON_VIBER: DispatchResult = {
  status: "not_on_channel",
  error: { code: "not_on_viber", message: "The recipient is not a Viber user." },
};
const REJECTED: DispatchResult = {
  status: "rejected",
  error: { code: "upstream_rejected", message: "The upstream refused the message." },
};

/**
 * The sandbox provider: accepts every dispatch except the magic numbers, then reports
 * `delivered` after `delayMs` and `seen` after another `delayMs`; `clicked` only when reported
 * through `report`. `close()` drops the pending reports.
 */
export function sandboxProvider(options: SandboxProviderOptions = {}): SandboxProvider {
  const delayMs = options.delayMs ?? 1000;
  const retryMs = options.retryMs ?? 1000;
  const scheduler = options.scheduler ?? realScheduler;
  const onError = options.onError ?? (() => {});
  const keep = Number.isFinite(options.keepDispatched)
    ? Math.max(0, Math.trunc(options.keepDispatched!))
    : 1000;
  const dispatched: OutboundMessage[] = [];
  const pending = new Set<{ cancel(): void }>();
  let sink: ((messageId: string, report: ProviderReport) => Promise<void>) | null = null;
  let closed = false;

  const report = async (messageId: string, status: ProviderReport): Promise<void> => {
    if (sink === null) throw new Error("sandbox provider: no report sink is registered");
    await sink(messageId, status);
  };

  // Each report is scheduled only after the previous one was recorded, so they arrive in order.
  const later = (messageId: string, steps: ProviderReport[], afterMs = delayMs): void => {
    const [next, ...rest] = steps;
    if (next === undefined || closed) return;
    const timer = scheduler.schedule(() => {
      pending.delete(timer);
      report(messageId, next).then(
        () => later(messageId, rest),
        (error: unknown) => {
          if (isStorageFault(error)) later(messageId, steps, retryMs);
          else onError(error);
        },
      );
    }, afterMs);
    pending.add(timer);
  };

  return {
    name: "sandbox",
    get dispatched() {
      return dispatched;
    },
    async dispatch(message) {
      if (closed) throw new Error("sandbox provider is closed");
      dispatched.push({ ...message });
      if (dispatched.length > keep) dispatched.shift();
      if (message.phoneNumber === SANDBOX_NUMBERS.rejected) return REJECTED;
      if (message.phoneNumber === SANDBOX_NUMBERS.notOnViber && message.channel === "viber") {
        return NOT_ON_VIBER;
      }
      if (message.phoneNumber !== SANDBOX_NUMBERS.neverDelivered) {
        later(message.messageId, ["delivered", "seen"]);
      }
      return { status: "accepted" };
    },
    onReport(next) {
      sink = next;
    },
    report,
    async close() {
      closed = true;
      for (const timer of pending) timer.cancel();
      pending.clear();
    },
  };
}
