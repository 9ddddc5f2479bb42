import { undiciProviderTransport } from "@tidings/adapter-http";
import {
  type CallbackApp,
  type Channel,
  type ChannelProvider,
  channelRouter,
  type Deps,
  failoverProvider,
  type InboundSink,
  type SandboxProvider,
  sandboxProvider,
  systemClock,
} from "@tidings/core";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import { isLoopback } from "../observability/loopback.js";
import { type ProviderName, providersInUse } from "../provider-config.js";
import { pluginOf } from "../provider-registry.js";
import type { Mount } from "./mount.js";

/** Where `serve` mounts each real provider's callbacks: `/providers/{name}`. */
export const PROVIDERS_PATH = "/providers";

/** The providers the configuration chose, composed into the one `deps.provider`. */
export interface ComposedProviders {
  /** Each channel's provider behind one router (the provider itself when one carries both). */
  provider: ChannelProvider;
  /** Whether some channel uses the sandbox (its `/sandbox` routes are served then only). */
  sandbox: boolean;
  /** The sandbox, when some channel uses it: the one provider that reports in process. */
  sandboxProvider: SandboxProvider | null;
  /**
   * The callback endpoints of the real providers in use, to mount on the HTTP server; each also
   * serves its provider's inbound messages, handed to `deps.inboundSink`.
   */
  callbacks(deps: CallbackDeps): Mount[];
  /** Stops what the routes started in the background (Twilio's price reads). */
  close(): void;
}

/** What the provider routes are built with: the use cases' deps, and where inbound goes. */
export type CallbackDeps = Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry"> & {
  /** Where each provider's inbound route hands the messages it verified. */
  inboundSink: InboundSink;
};

/**
 * Builds the provider of each channel from the configuration. `publicUrl` answers the URL at
 * which providers reach this server (known only once it listens when `TIDINGS_PUBLIC_URL` is
 * unset); callbacks are sent to, and verified against, `{publicUrl}/providers/{name}`.
 */
/** One request to a real provider, as the adapters report it for metrics. */
export interface ProviderRequestSeen {
  provider: string;
  channel: Channel;
  outcome: string;
  durationMs: number;
}

export function composeProviders(
  config: Pick<ServerConfig, "providers" | "sandboxDelayMs">,
  logger: Logger,
  publicUrl: () => string,
  secretKey: Uint8Array,
  onRequest?: ((seen: ProviderRequestSeen) => void) | undefined,
  onFailover?: ((from: string, to: string, channel: Channel) => void) | undefined,
): ComposedProviders {
  const settings = config.providers;
  const callbackBase = (name: ProviderName) => () => `${publicUrl()}${PROVIDERS_PATH}/${name}`;
  const built = new Map<ProviderName, ChannelProvider>();
  let sandbox: SandboxProvider | null = null;
  for (const name of providersInUse(settings)) {
    if (name === "sandbox") {
      sandbox = sandboxProvider({ delayMs: config.sandboxDelayMs });
      built.set(name, sandbox);
      continue;
    }
    const plugin = pluginOf(name);
    const own = settings[name];
    if (plugin === undefined || own === null) continue;
    built.set(
      name,
      plugin.create(own, {
        timeoutMs: settings.timeoutMs,
        transport: undiciProviderTransport,
        clock: systemClock,
        logger,
        onRequest,
        callbackBaseUrl: callbackBase(name),
        secretKey,
      }),
    );
  }
  const one = (name: string, channel: Channel): ChannelProvider => {
    const provider = built.get(name as ProviderName);
    // readConfig refuses a provider without its settings, so this is a bug if it happens.
    if (provider === undefined) throw new Error(`No provider was built for ${channel}.`);
    return provider;
  };
  // A channel with an ordered list of providers fails over along it (core's failoverProvider).
  const of = (channel: Channel): ChannelProvider => {
    const { failover } = settings;
    const names = failover[channel].length > 0 ? failover[channel] : [settings[channel]];
    if (names.length === 1) return one(settings[channel], channel);
    const members = names.map((name) => ({
      provider: one(name, channel),
      senders: failover.senders[name] ?? null,
    }));
    return failoverProvider(members, { onTimeout: failover.onTimeout, onFailover, logger });
  };
  const viber = of("viber");
  const sms = of("sms");
  const apps: CallbackApp[] = [];
  return {
    provider: viber === sms ? viber : channelRouter({ viber, sms }),
    sandbox: built.has("sandbox"),
    sandboxProvider: sandbox,
    callbacks(deps) {
      const mounts: Mount[] = [];
      for (const name of built.keys()) {
        const plugin = pluginOf(name);
        const own = name === "sandbox" ? null : settings[name];
        if (plugin === undefined || own === null) continue;
        const app = plugin.callbacks(own, {
          deps,
          logger,
          inbound: deps.inboundSink,
          callbackBaseUrl: callbackBase(name),
          secretKey,
        });
        apps.push(app);
        mounts.push({ prefix: `${PROVIDERS_PATH}/${name}`, app });
      }
      return mounts;
    },
    close() {
      for (const app of apps) app.close?.();
    },
  };
}

/**
 * Warns when a real provider's delivery reports are addressed to this machine alone: with
 * `TIDINGS_DEV=1` and no `TIDINGS_PUBLIC_URL` they go to the address `serve` listens on
 * (`http://127.0.0.1:…`), which the provider cannot reach, so messages go out but their
 * lifecycle stops at `sent`. A public URL on a loopback host is warned of the same way.
 */
export function warnIfCallbacksUnreachable(
  logger: Logger,
  config: Pick<ServerConfig, "providers" | "publicUrl">,
  listeningUrl: string,
): void {
  const real = providersInUse(config.providers).filter((name) => name !== "sandbox");
  if (real.length === 0) return;
  const base = config.publicUrl ?? listeningUrl;
  if (config.publicUrl !== null && !isLoopback(new URL(base).hostname)) return;
  logger.warn("provider callbacks cannot reach this server", {
    providers: real,
    callback_urls: real.map((name) => `${base}${PROVIDERS_PATH}/${name}`),
    hint:
      config.publicUrl === null
        ? "TIDINGS_PUBLIC_URL is not set, so delivery reports are addressed to the address this server listens on, which the provider cannot reach: messages are sent, but stay `sent`. Set TIDINGS_PUBLIC_URL to an address the provider reaches (a tunnel to this port will do)."
        : "TIDINGS_PUBLIC_URL is on this machine, which the provider cannot reach: messages are sent, but stay `sent`. Set it to an address the provider reaches (a tunnel to this port will do).",
  });
}
