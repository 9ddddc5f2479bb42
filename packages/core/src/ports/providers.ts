/**
 * The outside world a send reaches: channel providers and the telemetry of a send.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { Category, Channel } from "./campaigns.js";
import type { SuppressionSource } from "./consent-loop.js";
import type { MessageError, NotTaken, ProviderAttempt } from "./messages.js";

/** A rendered message handed to the Viber or SMS upstream. */
export interface OutboundMessage {
  messageId: string;
  channel: Channel;
  sender: string;
  phoneNumber: string;
  body: string;
  category: Category;
  ttlSeconds: number;
}

/**
 * The upstream's answer to one dispatch. `provider` names the provider that answered when it
 * is not the `ChannelProvider`'s own `name` (a router answers for the provider it chose).
 */
export type DispatchResult = (
  | {
      status: "accepted";
      /** The provider's id of the message, kept to match its reports; absent when none. */
      providerMessageId?: string | null | undefined;
      /**
       * The sender the provider says it sends from, as it spells it, where its answer says so
       * (a Messaging Service's pool number); absent when it does not.
       */
      sentFrom?: string | null | undefined;
    }
  | { status: "rejected"; error: MessageError }
  /** Viber only: the recipient is not reachable on Viber (the core may fall back to SMS). */
  | { status: "not_on_channel"; error: MessageError }
) & {
  provider?: string | undefined;
  /**
   * Set when the provider provably did not take the message, saying why: the request never
   * reached it (`unreachable`: DNS, connection refused, TLS, connect timeout), its circuit was
   * open (`circuit_open`), or it refused the request itself (`unauthorized`: 401/403;
   * `rate_limited`: 429 or a full queue). Another provider may then carry it without a duplicate.
   */
  notTaken?: NotTaken | undefined;
  /**
   * The TTL the provider was given, in seconds, when it clamped the one asked to its range
   * (Infobip at most 48 h, Vonage Viber 30–259,200 s); absent when it took the TTL as asked.
   */
  clampedTtlSeconds?: number | undefined;
  /**
   * The providers of a failover list tried before the one that answered, in order, and why
   * each did not carry the message; absent or empty when the first answered.
   */
  triedBefore?: readonly ProviderAttempt[] | undefined;
};

/** What a dispatch is told besides the message. */
export interface DispatchOptions {
  /**
   * Another provider takes the message when this one provably does not (failover): a request
   * that never reached this provider, or a 429, is then not tried again here but answered at
   * once with `notTaken`.
   */
  failoverReady?: boolean | undefined;
}

/** The longest text a channel's providers take, and the provider whose limit it is. */
export interface TextLimit {
  characters: number;
  /** `TIDINGS_PROVIDER`'s value of the provider with that limit: `twilio`. */
  provider: string;
}

/** A lifecycle report from the upstream, fed back through `recordProviderReport`. */
export type ProviderReport = "delivered" | "seen" | "clicked" | "failed" | "expired";

/**
 * One report from a real upstream, with what identifies the leg it is about, fed back through
 * `recordUpstreamReport`. It is applied only to the message's current leg: a report of a leg
 * the message left (a Viber leg after the SMS fallback), of another provider, or naming
 * another provider message id than the one stored, is ignored.
 */
export interface UpstreamReport {
  messageId: string;
  /** The channel of the leg reported on. */
  channel: Channel;
  /** The provider reporting, as `ChannelProvider.name` spells it. */
  provider: string;
  /** The provider's id of the leg, when the report carries one. */
  providerMessageId: string | null;
  status: ProviderReport;
  /** The provider's own code of a failure (Twilio `30003`, Infobip `EC_UNKNOWN_USER`), or `null`. */
  providerCode: string | null;
  /** A sentence saying what the provider reported, for a failure's `error.message`. */
  description?: string | undefined;
  /**
   * The sender the leg went out from, as the provider's report spells it (Twilio's `From`,
   * Infobip's `sender`, Vonage's `from`), where the report gives it.
   */
  sentFrom?: string | null | undefined;
  /**
   * What the leg cost, when the report says: `amount` as the provider wrote it (a decimal
   * number or string; a negative one, as Twilio writes charges, is made positive), `currency`
   * its ISO 4217 code. Stored once per leg (see `MessageRepository.recordPrice`).
   */
  price?: ReportedPrice | undefined;
}

/** A price as a provider reports it, before it is checked. */
export interface ReportedPrice {
  amount: unknown;
  currency: unknown;
}

/** The seam to the Viber and SMS gateways. */
export interface ChannelProvider {
  readonly name: string;
  /**
   * The name of the provider that carries `channel`, when it is not `name` (a router of one
   * provider per channel answers per channel). Kept on each leg of a message.
   */
  providerFor?(channel: Channel): string;
  /**
   * Hands one message to the upstream. Rejects only on a transport failure. A real provider's
   * later reports arrive at its callbacks (`CallbackApp`), not through the provider.
   */
  dispatch(message: OutboundMessage, options?: DispatchOptions): Promise<DispatchResult>;
  /**
   * The longest text every provider that may carry `channel` takes (the smallest of a failover
   * list), or `null` when none has a limit; absent: no limit known.
   */
  textLimit?(channel: Channel): TextLimit | null;
  /** Stops timers; pending reports are dropped. */
  close?(): Promise<void>;
}

/**
 * A provider that hands its lifecycle reports to the host in process, with no callback to
 * receive: the sandbox (and test doubles shaped like it). A real upstream reports through its
 * callbacks instead.
 */
export interface InProcessReportingProvider extends ChannelProvider {
  /** Called once with the sink for the provider's asynchronous lifecycle reports. */
  onReport(sink: (messageId: string, report: ProviderReport) => Promise<void>): void;
}

/** How a send ended once handed to the upstream: on its campaign's channel, by SMS instead, or not. */
export type SendOutcome = "sent" | "fell_back_to_sms" | "failed";

/**
 * What the core reports as it works, for the host's metrics (the server counts it with
 * Prometheus). Optional in `Deps`; each method returns at once and never throws.
 */
export interface Telemetry {
  /** A send was stored and handed to the upstream; `channel` is its campaign's channel. */
  messageSent(send: { category: Category; channel: Channel; outcome: SendOutcome }): void;
  /** A short link redirected; `counted` false for a HEAD or a link-preview fetcher. */
  linkFollowed?(counted: boolean): void;
  /** A send was refused by the organization's abuse protection before anything was stored. */
  sendRefused?(reason: SendRefusalReason): void;
  /** A send was stored and handed off to a number of `country` (its region, or `unknown`). */
  sentToCountry?(country: string): void;
  /**
   * A suppression was added by a provider's refusal (`provider`) or through the API or CLI
   * (`api`); inbound opt-outs are reported by the inbound sink's own telemetry.
   */
  suppressionAdded?(source: SuppressionSource): void;
  /** A provider reported what one leg cost (`amount` in `currency`'s unit, never negative). */
  priceReported?(price: {
    provider: string;
    currency: string;
    country: string;
    amount: number;
  }): void;
}

/** Why abuse protection refused a send (`tidings_sends_refused_total{reason}`). */
export type SendRefusalReason =
  | "country_not_allowed"
  | "number_type_blocked"
  | "destination_limit"
  | "prefix_limit"
  | "country_limit";
