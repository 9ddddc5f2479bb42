import { createUrlPolicy, undiciWebhookTransport } from "@tidings/adapter-http";
import {
  aesGcmSecretBox,
  batchedProviderReports,
  type Clock,
  createIds,
  type Deps,
  defaultConfig,
  type InboundSink,
  inboundSink,
  isStorageUnavailable,
  StorageBusyError,
  systemClock,
  type TidingsConfig,
  unopenableSuppressionKeys,
} from "@tidings/core";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import { createMetrics, type Metrics } from "../observability/metrics.js";
import { withStorageMetrics } from "../observability/storage-metrics.js";
import { ConfigError, loadSecretKey, numberHashKeyOf } from "../secret-key.js";
import { withDeliveryWakeups } from "./delivery-wakeups.js";
import { loadedLocalCalendar } from "./local-calendar.js";
import type { Mount } from "./mount.js";
import { assertDatabaseDirectory, openStorage } from "./open-storage.js";
import type { OpenedStorage } from "./opened-storage.js";
import { composeProviders } from "./providers.js";

/** The composed application: storage, ports and configuration, ready for the use cases. */
export interface Runtime {
  deps: Deps;
  migrations: OpenedStorage["migrations"];
  listenForDeliveries: OpenedStorage["listenForDeliveries"];
  maintain: OpenedStorage["maintain"];
  /** The storage's start-up warnings (see `OpenedStorage`). */
  storageWarnings: string[];
  /** The database connection's settings, for the start-up log line. */
  storageSettings: Record<string, string>;
  /** This process's Prometheus metrics; `null` unless it serves them (`serve`, `worker`). */
  metrics: Metrics | null;
  /** Calls `fn` whenever this process queued webhook deliveries (to wake the engine). */
  onDeliveriesQueued(fn: () => void): void;
  /** Whether some channel uses the sandbox provider (so `/sandbox` is served). */
  sandbox: boolean;
  /**
   * The real providers' callback endpoints, mounted by `serve` under `/providers/{name}`, their
   * inbound routes included.
   */
  providerCallbacks: Mount[];
  /** Where inbound messages go: the provider routes and the sandbox's inbound route. */
  inboundSink: InboundSink;
  /**
   * Tells the runtime where this server listens, when `TIDINGS_PUBLIC_URL` is unset: providers
   * are given callback URLs on it from then on.
   */
  listeningAt(url: string): void;
  /** Stops the provider, the transport and the storage, in that order. */
  close(): Promise<void>;
}

/** The core's tunable numbers from the server's configuration. */
export function tidingsConfig(config: ServerConfig): TidingsConfig {
  return {
    ...defaultConfig,
    sendRateLimit: config.sendRateLimit,
    sendRateWindowMs: config.sendRateWindowMs,
    webhookTestRateLimit: config.webhookTestRateLimit,
    webhookTestRateWindowMs: config.webhookTestRateWindowMs,
    webhookBackoffBaseMs: config.webhookBackoffBaseMs,
    webhookBackoffCapMs: config.webhookBackoffCapMs,
    webhookRetryWindowMs: config.webhookRetryWindowMs,
    webhookDisableAfterMs: config.webhookDisableAfterMs,
    retentionMs: config.retentionMs,
    eraseDeletedAfterMs: config.eraseDeletedAfterMs,
    idempotencyTtlMs: config.idempotencyTtlMs,
  };
}

/** What `openRuntime` may be given besides the configuration. */
export interface RuntimeOptions {
  /** Serve Prometheus metrics (`serve`, `worker`). */
  metrics?: boolean | undefined;
  /** Where the providers' inbound routes hand messages, instead of the runtime's own sink. */
  inboundSink?: InboundSink | undefined;
  /** The use cases' clock (the system's); tests of the real server pass one they move. */
  clock?: Clock | undefined;
}

/**
 * Composes the application from the configuration: opens (and migrates) the storage, loads
 * the secret key, and builds each channel's provider, the webhook transport and the URL policy.
 * The provider's lifecycle reports are recorded here, so they reach the webhooks. With
 * `metrics`, the storage and the use cases count what Prometheus is to see.
 */
export async function openRuntime(
  config: ServerConfig,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  // The key is checked before the database is touched, so a bad key changes nothing.
  assertDatabaseDirectory(config.database);
  const key = loadSecretKey(config.secretKey, config.database, logger);
  const opened = await openStorage(config.database, logger, {
    timeoutMs: config.startupTimeoutMs,
    storageTimeoutMs: config.storageTimeoutMs,
  });
  if (opened.migrations.applied.length > 0) {
    logger.info("migrations applied", {
      applied: opened.migrations.applied,
      version: opened.migrations.version,
    });
  }
  const urlPolicy = createUrlPolicy({ dev: config.dev, devModeHint: "TIDINGS_DEV=1" });
  const transport = undiciWebhookTransport({ urlPolicy });
  const metrics =
    options.metrics === true
      ? createMetrics({
          webhookBacklog: opened.webhookBacklog,
          scheduledMessages: opened.scheduledMessages,
        })
      : null;
  let listeningUrl = `http://127.0.0.1:${config.port}`;
  const providers = composeProviders(
    config,
    logger,
    () => config.publicUrl ?? listeningUrl,
    key,
    metrics
      ? (seen) => {
          metrics.providerRequests.inc({
            provider: seen.provider,
            channel: seen.channel,
            outcome: seen.outcome,
          });
          metrics.providerDuration.observe(
            { provider: seen.provider, channel: seen.channel },
            seen.durationMs / 1000,
          );
        }
      : undefined,
    metrics ? (from, to) => metrics.providerFailovers.inc({ from, to }) : undefined,
  );
  const provider = providers.provider;
  const queuedListeners: Array<() => void> = [];
  const deliveriesQueued = () => {
    for (const fn of queuedListeners) fn();
  };
  const storage = metrics ? withStorageMetrics(opened.storage, metrics) : opened.storage;
  const health = opened.storage.health;
  if (metrics && health) metrics.observeStorageAvailability(() => health.isAvailable());
  const deps: Deps = {
    storage: withDeliveryWakeups(storage, deliveriesQueued),
    clock: options.clock ?? systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key),
    numberHashKey: numberHashKeyOf(key),
    provider,
    transport,
    urlPolicy,
    config: tidingsConfig(config),
    calendar: loadedLocalCalendar(),
    links: {
      // Read at each use: in development the listening URL is known only once the port is.
      get baseUrl() {
        return config.linkBaseUrl ?? config.publicUrl ?? (config.dev ? listeningUrl : null);
      },
      dev: config.dev,
      untracked: untrackedCampaignWarning(logger),
    },
    ...(metrics
      ? {
          telemetry: {
            messageSent: (send) => metrics.messages.inc(send),
            linkFollowed: (counted) => metrics.linkClicks.inc({ counted: String(counted) }),
            sendRefused: (reason) => metrics.sendsRefused.inc({ reason }),
            sentToCountry: (country) => metrics.sendsByCountry.inc({ country }),
            suppressionAdded: (source) => metrics.suppressions.inc({ source }),
            priceReported: ({ provider, currency, country, amount }) =>
              metrics.messagePrice.inc({ provider, currency, country }, amount),
          },
        }
      : {}),
  };
  // A lost or changed secret key must never silently void the opt-outs sealed under it.
  const unopenable = await unopenableSuppressionKeys(deps);
  if (unopenable.length > 0) {
    await opened.close();
    throw new ConfigError(
      `TIDINGS_SECRET_KEY cannot open the suppression keys of ${unopenable.length} organization(s) ` +
        `(${unopenable.slice(0, 3).join(", ")}): it is not the key they were sealed with. ` +
        "Start with the original secret key; opt-outs would be lost otherwise.",
    );
  }
  // The one place the inbound sink is chosen: a test or embedder may hand its own.
  const inbound: InboundSink =
    options.inboundSink ??
    inboundSink(deps, {
      keywords: config.keywords,
      dropped: (report, outcome) =>
        logger.info("inbound message not stored", {
          provider: report.provider,
          channel: report.channel,
          outcome,
        }),
      ...(metrics
        ? {
            telemetry: {
              inboundReceived: (seen) =>
                metrics.inboundMessages.inc({
                  provider: seen.provider,
                  channel: seen.channel,
                  keyword_class: seen.keywordClass,
                }),
              suppressionAdded: (source) => metrics.suppressions.inc({ source }),
            },
          }
        : {}),
    });
  // Reports that come due together (a busy second's sends) share a transaction.
  const recordReport = batchedProviderReports(deps);
  providers.sandboxProvider?.onReport(async (messageId, report) => {
    try {
      const recorded = await recordReport(messageId, report);
      if (recorded.isErr()) {
        logger.warn("provider report not recorded", { messageId, report, error: recorded.error });
      }
    } catch (error) {
      // Storage is unavailable or busy: the provider keeps the report and offers it again.
      if (isStorageUnavailable(error) || error instanceof StorageBusyError) throw error;
      logger.error("provider report failed", { messageId, report, error });
    }
  });
  return {
    deps,
    migrations: opened.migrations,
    listenForDeliveries: opened.listenForDeliveries,
    maintain: opened.maintain,
    storageWarnings: opened.warnings ?? [],
    storageSettings: opened.settings ?? {},
    metrics,
    onDeliveriesQueued: (fn) => {
      queuedListeners.push(fn);
    },
    sandbox: providers.sandbox,
    providerCallbacks: providers.callbacks({ ...deps, inboundSink: inbound }),
    inboundSink: inbound,
    listeningAt(url) {
      listeningUrl = url;
    },
    async close() {
      providers.close();
      await provider.close?.();
      await transport.close?.();
      await opened.close();
    },
  };
}

/** Campaigns warned of, at most: past it the memory starts over, so a warning may come again. */
const WARNED_CAMPAIGNS = 1_000;

/**
 * A warning, once per campaign in this process, that a campaign tracking links sends while no
 * usable link base is set: its links go out untracked, which nothing else would show.
 */
function untrackedCampaignWarning(logger: Logger): (campaignId: string) => void {
  const warned = new Set<string>();
  return (campaignId) => {
    if (warned.has(campaignId)) return;
    if (warned.size >= WARNED_CAMPAIGNS) warned.clear();
    warned.add(campaignId);
    logger.warn(
      "campaign tracks links but no https link base is set (TIDINGS_LINK_BASE_URL or TIDINGS_PUBLIC_URL): its links go out untracked",
      { campaignId },
    );
  };
}
