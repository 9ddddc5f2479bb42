// What a provider's inbound route hands to core: one message a person sent to one of our
// senders, already verified as the provider's own request, not yet normalised or owned.

/** The channels a person can write to us on. */
export type InboundChannel = "sms" | "viber";

/** What a provider itself said the message was (Twilio's `OptOutType`, for example). */
export type ProviderKeywordClass = "opt_out" | "opt_in" | "help";

/** One inbound message, as a provider's route read it from the provider's request. */
export interface InboundReport {
  /** The provider that brought it: `twilio`, `infobip`, `vonage`, `telnyx` or `sandbox`. */
  provider: string;
  /** The provider's id of this inbound message: with `provider`, the key that stores it once. */
  providerMessageId: string;
  channel: InboundChannel;
  /** The person's number as the provider gave it (core normalises it to E.164). */
  from: string;
  /** Our sender it was written to, as the provider gave it (a number, short code or service id). */
  to: string;
  /** The text as the person wrote it. */
  text: string;
  /** When the provider received it, where it says so. */
  receivedAt: Date | null;
  /** The provider's own reading of the text, which wins over keyword matching where present. */
  providerKeywordClass: ProviderKeywordClass | null;
}

/**
 * What storing an inbound message came to. A route answers 200 for every outcome (the provider
 * has nothing to retry); a sink that cannot reach storage throws, and the route answers 503.
 */
export type InboundOutcome =
  /** Stored for its owners, with its effects (opt-out, opt-in) applied and its events queued. */
  | "stored"
  /** The same provider message was stored before: nothing added, nothing reported again. */
  | "duplicate"
  /** `from` is not a phone number: logged, nothing stored. */
  | "bad_sender"
  /** No organization owns `to` (nobody sent from it to `from`, nobody was assigned it). */
  | "no_owner";

/** Where a provider's inbound route hands what it verified; core's use case implements it. */
export interface InboundSink {
  receive(report: InboundReport): Promise<InboundOutcome>;
}
