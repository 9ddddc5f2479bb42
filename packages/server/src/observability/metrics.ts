import { MESSAGE_TOPICS, type WebhookBacklog } from "@tidings/core";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: from a quick lookup to the 15 s webhook timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** The outcomes of `tidings_webhook_attempts_total` (see `attemptOutcome`). */
export const ATTEMPT_OUTCOMES = [
  "2xx",
  "3xx",
  "4xx",
  "5xx",
  "timeout",
  "connection_error",
  "url_refused",
  "not_sent",
  "other_status",
] as const;

export type AttemptOutcomeLabel = (typeof ATTEMPT_OUTCOMES)[number];

/** The kinds of `tidings_storage_errors_total`: busy, and each `StorageFaultReason`. */
export const STORAGE_ERROR_KINDS = [
  "busy",
  "unreachable",
  "disk_full",
  "read_only",
  "io_error",
] as const;

/** The reads a scrape makes, each optional: a gauge whose source is missing is not exported. */
export interface MetricSources {
  /** Pending webhook deliveries due at `now`, and the earliest due time among them. */
  webhookBacklog?: ((now: string) => Promise<WebhookBacklog>) | undefined;
  /** How many messages are held `scheduled` (a sending window or `send_at`). */
  scheduledMessages?: (() => Promise<number>) | undefined;
  /** The clock the backlog is read against, in ms since the epoch (`Date.now`). */
  now?: (() => number) | undefined;
}

/**
 * Every Tidings series, in one registry per process (not prom-client's global one, so an
 * embedder's own metrics and several servers in one test process never collide). Labels hold
 * only bounded values: method, route template, status, category, channel, topic and outcome;
 * never an id, a phone number, an email or a URL.
 */
export function createMetrics(sources: MetricSources = {}) {
  const registry = new Registry();
  // The event-loop delay histogram samples every 100 ms rather than prom-client's 10 ms: the
  // faster timer woke a busy server's loop often enough to cost it several percent of its
  // throughput (bench/RESULTS.md "Metrics on versus off"), for no better answer to "is the
  // loop lagging".
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const now = sources.now ?? Date.now;

  const httpRequests = new Counter({
    name: "tidings_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "tidings_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const messages = new Counter({
    name: "tidings_messages_total",
    help: "Messages handed to the upstream, by category, campaign channel and outcome (sent, fell_back_to_sms, failed).",
    labelNames: ["category", "channel", "outcome"] as const,
    registers: [registry],
  });
  const linkClicks = new Counter({
    name: "tidings_link_clicks_total",
    help: "Short links followed, by whether the visit counted as a click (false: a HEAD or a link-preview fetcher).",
    labelNames: ["counted"] as const,
    registers: [registry],
  });
  const inboundMessages = new Counter({
    name: "tidings_inbound_messages_total",
    help: "Inbound messages stored, by provider, channel and keyword class (opt_out, opt_in, help, none).",
    labelNames: ["provider", "channel", "keyword_class"] as const,
    registers: [registry],
  });
  const suppressions = new Counter({
    name: "tidings_suppressions_total",
    help: "Suppressions added, by source (inbound, provider, api).",
    labelNames: ["source"] as const,
    registers: [registry],
  });
  const sendsRefused = new Counter({
    name: "tidings_sends_refused_total",
    help: "Sends refused by the organization's abuse protection before anything was stored, by reason (country_not_allowed, number_type_blocked, destination_limit, prefix_limit, country_limit).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const sendsByCountry = new Counter({
    name: "tidings_sends_by_country_total",
    help: "Sends stored and handed off, by the recipient number's country (ISO 3166-1 alpha-2, or unknown).",
    labelNames: ["country"] as const,
    registers: [registry],
  });
  const messagePrice = new Counter({
    name: "tidings_message_price_total",
    help: "What providers reported messages cost, in each currency's unit, by provider, currency (ISO 4217) and the recipient number's country (ISO 3166-1 alpha-2, or unknown); one report per leg.",
    labelNames: ["provider", "currency", "country"] as const,
    registers: [registry],
  });
  const lifecycleEvents = new Counter({
    name: "tidings_message_lifecycle_events_total",
    help: "Message lifecycle events recorded, by topic.",
    labelNames: ["topic"] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: "tidings_webhook_attempts_total",
    help: "Webhook delivery attempts, by outcome (2xx, 3xx, 4xx, 5xx, timeout, connection_error, url_refused, not_sent, other_status).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const webhookAttemptDuration = new Histogram({
    name: "tidings_webhook_attempt_duration_seconds",
    help: "Time a webhook delivery attempt took, by outcome.",
    labelNames: ["outcome"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: "tidings_rate_limited_total",
    help: "Requests refused with 429 by a per-key rate limit, by route template.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const idempotentReplays = new Counter({
    name: "tidings_idempotent_replays_total",
    help: "Requests answered from a stored Idempotency-Key response, by route template.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const providerRequests = new Counter({
    name: "tidings_provider_requests_total",
    help: "Requests to a channel provider, by provider, channel and outcome (accepted, rejected, unauthorized, rate_limited, unavailable).",
    labelNames: ["provider", "channel", "outcome"] as const,
    registers: [registry],
  });
  const providerFailovers = new Counter({
    name: "tidings_provider_failovers_total",
    help: "Sends handed from one provider of a channel's failover list to the next, by the provider that did not take it and the one tried next.",
    labelNames: ["from", "to"] as const,
    registers: [registry],
  });
  const providerDuration = new Histogram({
    name: "tidings_provider_request_duration_seconds",
    help: "Time a request to a channel provider took, by provider and channel.",
    labelNames: ["provider", "channel"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const storageBusy = new Counter({
    name: "tidings_storage_busy_total",
    help: "Storage operations given up because the database stayed locked by another process.",
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: "tidings_storage_errors_total",
    help: "Storage operations that failed because the database was locked by another process (busy), out of reach (unreachable), full (disk_full), read-only (read_only) or failing (io_error), by kind.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const webhooksDisabled = new Counter({
    name: "tidings_webhook_subscriptions_disabled_total",
    help: "Webhook subscriptions turned off because every attempt failed for the configured time.",
    registers: [registry],
  });

  const releases = new Counter({
    name: "tidings_scheduled_releases_total",
    help: "Held messages (sending window, send_at) whose release was decided, by outcome: released to the provider, refused at release (consent, suppression, campaign), or abandoned (its releasing process died).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const releaseLag = new Histogram({
    name: "tidings_message_release_lag_seconds",
    help: "How long after its release time a held message went to the provider.",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  });

  // Every known label value starts at 0, so rate() and increase() see the first event too.
  for (const outcome of ["released", "refused", "abandoned"]) releases.inc({ outcome }, 0);
  for (const category of ["otp", "transactional", "promotional"]) {
    for (const channel of ["viber", "sms"]) {
      for (const outcome of ["sent", "fell_back_to_sms", "failed"]) {
        messages.inc({ category, channel, outcome }, 0);
      }
    }
  }
  for (const topic of MESSAGE_TOPICS) lifecycleEvents.inc({ topic }, 0);
  for (const kind of STORAGE_ERROR_KINDS) storageErrors.inc({ kind }, 0);
  for (const outcome of ATTEMPT_OUTCOMES) webhookAttempts.inc({ outcome }, 0);

  const { webhookBacklog } = sources;
  if (webhookBacklog) {
    // Both gauges come from one read per scrape: prom-client collects every series at once.
    // A failed read leaves them NaN for that scrape rather than failing the whole scrape.
    let pending: Promise<WebhookBacklog | null> | null = null;
    const read = () => {
      pending ??= webhookBacklog(new Date(now()).toISOString())
        .catch(() => null)
        .finally(() => {
          pending = null;
        });
      return pending;
    };
    new Gauge({
      name: "tidings_webhook_backlog",
      help: "Pending webhook deliveries that are due now.",
      registers: [registry],
      async collect() {
        const backlog = await read();
        this.set(backlog === null ? Number.NaN : backlog.due);
      },
    });
    new Gauge({
      name: "tidings_webhook_oldest_due_seconds",
      help: "How late the most overdue pending webhook delivery is, in seconds (0 when none is due).",
      registers: [registry],
      async collect() {
        const backlog = await read();
        const oldest = backlog?.oldestDueAt ?? null;
        this.set(
          backlog === null
            ? Number.NaN
            : oldest === null
              ? 0
              : Math.max(0, (now() - Date.parse(oldest)) / 1000),
        );
      },
    });
  }

  const { scheduledMessages } = sources;
  if (scheduledMessages) {
    new Gauge({
      name: "tidings_messages_scheduled",
      help: "Messages held scheduled for their sending window or send_at, not yet released.",
      registers: [registry],
      async collect() {
        // A failed read leaves it NaN for that scrape rather than failing the whole scrape.
        this.set(await scheduledMessages().catch(() => Number.NaN));
      },
    });
  }

  return {
    registry,
    httpRequests,
    httpDuration,
    messages,
    linkClicks,
    inboundMessages,
    suppressions,
    sendsRefused,
    sendsByCountry,
    messagePrice,
    lifecycleEvents,
    webhookAttempts,
    webhookAttemptDuration,
    rateLimited,
    idempotentReplays,
    providerRequests,
    providerFailovers,
    providerDuration,
    storageBusy,
    storageErrors,
    webhooksDisabled,
    releases,
    releaseLag,
    /**
     * Exports `tidings_storage_available`, read from `available` at each scrape: 1 while
     * storage works, 0 while the last write or probe failed because it was unavailable.
     */
    observeStorageAvailability(available: () => boolean): void {
      new Gauge({
        name: "tidings_storage_available",
        help: "1 while storage works; 0 while the last write or probe found it out of reach, full or read-only.",
        registers: [registry],
        collect() {
          this.set(available() ? 1 : 0);
        },
      });
    },
    /**
     * Exports `tidings_webhook_open_circuits`, read from `count` at each scrape: the number of
     * webhook destinations whose circuit breaker is open. The delivery engine that keeps the
     * circuits calls it once (`metrics.observeOpenCircuits(() => engine.openCircuits())`).
     */
    observeOpenCircuits(count: () => number): void {
      new Gauge({
        name: "tidings_webhook_open_circuits",
        help: "Webhook destinations whose circuit breaker is open (tried less often).",
        registers: [registry],
        collect() {
          this.set(count());
        },
      });
    },
    /** The exposition text of every series, and its content type. */
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** The metrics of one process. */
export type Metrics = ReturnType<typeof createMetrics>;
