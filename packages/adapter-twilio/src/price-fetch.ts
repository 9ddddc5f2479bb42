import { type CallbackLogger, type Deps, recordUpstreamPrice } from "@tidings/core";
import { request } from "undici";

export interface TwilioPriceFetchOptions {
  accountSid: string;
  /** Reads with Basic `AccountSid:AuthToken` unless an API key is given, as sends do. */
  authToken: string;
  apiKeySid?: string | undefined;
  apiKeySecret?: string | undefined;
  /** Twilio's API origin (default `https://api.twilio.com`); tests point it at a fake. */
  apiUrl?: string | undefined;
  deps: Pick<Deps, "storage" | "clock" | "telemetry">;
  logger: CallbackLogger;
  /**
   * How long to wait before each read of one message, in ms: Twilio fills in `price` some time
   * after the final status, so a read that finds none is made again after the next wait, and
   * given up after the last. Default 10 s, 2 min, 15 min.
   */
  delaysMs?: readonly number[] | undefined;
  /** The most messages waiting for a read; one more is dropped (and logged). Default 10,000. */
  maxWaiting?: number | undefined;
  /** The most reads at once. Default 2. */
  concurrency?: number | undefined;
  /** The deadline of one read. Default 10 s. */
  timeoutMs?: number | undefined;
}

/** Reads what Twilio charged for messages, apart from the requests that reported them. */
export interface TwilioPriceFetcher {
  /** Reads the price of message `messageId` (Twilio's `messageSid`) later; returns at once. */
  fetchLater(messageId: string, messageSid: string): void;
  /** Forgets every waiting read. */
  close(): void;
}

const DEFAULT_DELAYS_MS = [10_000, 120_000, 900_000];

interface Waiting {
  messageId: string;
  messageSid: string;
  /** The reads made so far. */
  tries: number;
}

/**
 * Twilio's price of each message (`TIDINGS_TWILIO_FETCH_PRICE=1`): Twilio does not put it in
 * status callbacks, so after a message's final status one `GET …/Messages/{sid}.json` reads
 * its `price` and `price_unit` (a charge is negative there; it is kept positive). The read is
 * made off the callback's request, after a wait, at most `concurrency` at a time and for at
 * most `maxWaiting` messages; a message whose price is still `null` is read again after the
 * next wait, up to one read per wait. Failures are logged and dropped: a price is a report,
 * not a duty.
 */
export function twilioPriceFetcher(options: TwilioPriceFetchOptions): TwilioPriceFetcher {
  const apiUrl = (options.apiUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const base = `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages`;
  const user = options.apiKeySid ?? options.accountSid;
  const password = options.apiKeySid ? (options.apiKeySecret ?? "") : options.authToken;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const delays = options.delaysMs ?? DEFAULT_DELAYS_MS;
  const maxWaiting = options.maxWaiting ?? 10_000;
  const concurrency = options.concurrency ?? 2;
  const timers = new Set<NodeJS.Timeout>();
  const due: Waiting[] = [];
  let waiting = 0;
  let reading = 0;
  let closed = false;

  const later = (item: Waiting) => {
    const delay = delays[item.tries];
    if (delay === undefined || closed) {
      waiting -= 1;
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      due.push(item);
      next();
    }, delay);
    timer.unref();
    timers.add(timer);
  };

  const next = () => {
    while (reading < concurrency && due.length > 0 && !closed) {
      const item = due.shift()!;
      reading += 1;
      void read(item).finally(() => {
        reading -= 1;
        next();
      });
    }
  };

  const read = async (item: Waiting): Promise<void> => {
    item.tries += 1;
    let again = false;
    try {
      const response = await request(`${base}/${encodeURIComponent(item.messageSid)}.json`, {
        headers: { authorization, accept: "application/json" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const body = (await response.body.json().catch(() => ({}))) as Record<string, unknown>;
      if (response.statusCode !== 200) {
        options.logger.warn("twilio price not read", {
          messageId: item.messageId,
          status: response.statusCode,
          code: body.code ?? null,
        });
      } else if (body.price === null || body.price === undefined || body.price === "") {
        again = true;
      } else {
        await recordUpstreamPrice(options.deps, {
          messageId: item.messageId,
          channel: "sms",
          provider: "twilio",
          providerMessageId: item.messageSid,
          price: { amount: body.price, currency: body.price_unit },
        });
      }
    } catch (error) {
      options.logger.warn("twilio price not read", {
        messageId: item.messageId,
        error: (error as Error).message,
      });
    } finally {
      if (again) later(item);
      else waiting -= 1;
    }
  };

  return {
    fetchLater(messageId, messageSid) {
      if (closed) return;
      if (waiting >= maxWaiting) {
        options.logger.warn("twilio price read dropped: too many waiting", { messageId });
        return;
      }
      waiting += 1;
      later({ messageId, messageSid, tries: 0 });
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      due.length = 0;
    },
  };
}
