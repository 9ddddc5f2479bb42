import type {
  ChannelProvider,
  Clock,
  Ids,
  LocalCalendar,
  SecretBox,
  Storage,
  Telemetry,
  UrlPolicy,
  WebhookTransport,
} from "./ports.js";

/** Who is acting: every use case is scoped to one organization. */
export interface Actor {
  organizationId: string;
  /** The API key making the request; `null` for the CLI and other trusted callers. */
  apiKeyId: string | null;
  /**
   * Where the request came from when it is not the API (or the CLI, which acts as the API
   * does): `console` for the console's pages. The consent history records it as the source.
   */
  via?: "console" | undefined;
}

/** Tunable numbers, each with the default of docs/decisions.md. */
export interface TidingsConfig {
  /** Sends allowed per API key per window (100). */
  sendRateLimit: number;
  /** The sliding window of the send rate limit, in ms (60 000). */
  sendRateWindowMs: number;
  /** Test webhooks (`POST /v1/webhooks/test`) allowed per API key per window (10). */
  webhookTestRateLimit: number;
  /** The sliding window of the test webhook rate limit, in ms (60 000). */
  webhookTestRateWindowMs: number;
  /** How long an Idempotency-Key is remembered, in ms (24 h). */
  idempotencyTtlMs: number;
  /**
   * How long a request holds its Idempotency-Key, in ms (60 000): longer than any request runs.
   * If its process dies, a retry with the same body resumes the key once this has passed.
   */
  idempotencyLockMs: number;
  /** First retry delay of a webhook delivery, in ms (30 000). */
  webhookBackoffBaseMs: number;
  /** Longest retry delay, in ms (6 h). */
  webhookBackoffCapMs: number;
  /** How long after the first attempt a delivery is retried, in ms (72 h). */
  webhookRetryWindowMs: number;
  /** Hard deadline of one webhook POST, in ms (15 000). */
  webhookTimeoutMs: number;
  /**
   * How long a subscription's attempts may keep failing, with no success, before the delivery
   * engine turns it off, in ms (5 days).
   */
  webhookDisableAfterMs: number;
  /**
   * How long a message is kept, with its events, deliveries and attempts, in ms (90 days),
   * counted from its creation; longer while one of its deliveries is still pending.
   */
  retentionMs: number;
  /**
   * How long after its soft delete a profile is erased (see `privacy/erase-person.ts`), in ms;
   * `null` (the default): deleted profiles are kept until someone erases them.
   */
  eraseDeletedAfterMs?: number | null | undefined;
}

export const defaultConfig: TidingsConfig = {
  sendRateLimit: 100,
  sendRateWindowMs: 60_000,
  webhookTestRateLimit: 10,
  webhookTestRateWindowMs: 60_000,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  idempotencyLockMs: 60_000,
  webhookBackoffBaseMs: 30_000,
  webhookBackoffCapMs: 6 * 60 * 60 * 1000,
  webhookRetryWindowMs: 72 * 60 * 60 * 1000,
  webhookTimeoutMs: 15_000,
  webhookDisableAfterMs: 5 * 24 * 60 * 60 * 1000,
  retentionMs: 90 * 24 * 60 * 60 * 1000,
};

/** Where tracked links point, and whether tracking may use a plain-http base. */
export interface LinkSettings {
  /**
   * The base of short links, `{baseUrl}/l/{code}` (`TIDINGS_LINK_BASE_URL`, else the public
   * URL); `null` when none is set, and then no campaign may turn tracking on.
   */
  baseUrl: string | null;
  /** Development: an `http` base is accepted (outside it, only `https`). */
  dev: boolean;
  /**
   * Told of each send of a campaign that tracks links while no usable base is set (there was
   * one when the campaign turned tracking on; the settings changed since): its links go out
   * as written, untracked, and whoever runs Tidings should hear of it.
   */
  untracked?: ((campaignId: string) => void) | undefined;
}

/** Everything a use case may touch. */
export interface Deps {
  storage: Storage;
  clock: Clock;
  ids: Ids;
  secretBox: SecretBox;
  provider: ChannelProvider;
  transport: WebhookTransport;
  urlPolicy: UrlPolicy;
  config: TidingsConfig;
  /** Where tracked links point; absent, no campaign may turn tracking on. */
  links?: LinkSettings | undefined;
  /**
   * The key of the keyed hash under which destination counters name a phone number (the server
   * derives it from the secret key); without it, a random key of this process.
   */
  numberHashKey?: Uint8Array | undefined;
  /** Where sends are reported for metrics; none by default. */
  telemetry?: Telemetry | undefined;
  /**
   * The zones of phone number prefixes and the public holidays of countries, for sending
   * windows; absent, no prefix has a zone, so a windowed send needs the profile's `time_zone`.
   */
  calendar?: LocalCalendar | undefined;
}
