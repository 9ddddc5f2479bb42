import { infobipCallbacks, infobipProvider } from "@tidings/adapter-infobip";
import { twilioCallbacks, twilioProvider } from "@tidings/adapter-twilio";
import { vonageCallbacks, vonageProvider } from "@tidings/adapter-vonage";
import {
  type Channel,
  type ChannelProvider,
  channelRouter,
  type Deps,
  type InboundSink,
  sandboxProvider,
  systemClock,
} from "@tidings/core";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import { type ProviderName, providersInUse } from "../provider-config.js";
import type { Mount } from "./mount.js";

/** Where `serve` mounts each real provider's callbacks: `/providers/{name}`. */
export const PROVIDERS_PATH = "/providers";

/** The providers the configuration chose, composed into the one `deps.provider`. */
export interface ComposedProviders {
  /** Each channel's provider behind one router (the provider itself when one carries both). */
  provider: ChannelProvider;
  /** Whether some channel uses the sandbox (its `/sandbox` routes are served then only). */
  sandbox: boolean;
  /** The callback endpoints of the real providers in use, to mount on the HTTP server. */
  callbacks(deps: CallbackDeps): Mount[];
}

/** What the provider routes are built with: the use cases' deps, and where inbound goes. */
export type CallbackDeps = Pick<Deps, "storage" | "ids" | "clock" | "secretBox"> & {
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
): ComposedProviders {
  const settings = config.providers;
  const callbackBase = (name: ProviderName) => () => `${publicUrl()}${PROVIDERS_PATH}/${name}`;
  const built = new Map<ProviderName, ChannelProvider>();
  for (const name of providersInUse(settings)) {
    if (name === "sandbox") {
      built.set(name, sandboxProvider({ delayMs: config.sandboxDelayMs }));
    } else if (name === "twilio" && settings.twilio !== null) {
      const twilio = settings.twilio;
      built.set(
        name,
        twilioProvider({
          accountSid: twilio.accountSid,
          authToken: twilio.authToken,
          apiKeySid: twilio.apiKeySid ?? undefined,
          apiKeySecret: twilio.apiKeySecret ?? undefined,
          messagingServiceSid: twilio.messagingServiceSid ?? undefined,
          apiUrl: twilio.apiUrl,
          callbackBaseUrl: callbackBase("twilio"),
          timeoutMs: settings.timeoutMs,
          clock: systemClock,
          logger,
          onRequest,
        }),
      );
    } else if (name === "infobip" && settings.infobip !== null) {
      built.set(
        name,
        infobipProvider({
          baseUrl: settings.infobip.baseUrl,
          apiKey: settings.infobip.apiKey,
          callbackBaseUrl: callbackBase("infobip"),
          secretKey,
          timeoutMs: settings.timeoutMs,
          clock: systemClock,
          logger,
          onRequest,
        }),
      );
    } else if (name === "vonage" && settings.vonage !== null) {
      built.set(
        name,
        vonageProvider({
          applicationId: settings.vonage.applicationId,
          privateKey: settings.vonage.privateKey,
          apiUrl: settings.vonage.apiUrl,
          callbackBaseUrl: callbackBase("vonage"),
          timeoutMs: settings.timeoutMs,
          clock: systemClock,
          logger,
          onRequest,
        }),
      );
    }
  }
  const of = (channel: Channel): ChannelProvider => {
    const provider = built.get(settings[channel]);
    // readConfig refuses a provider without its settings, so this is a bug if it happens.
    if (provider === undefined) throw new Error(`No provider was built for ${channel}.`);
    return provider;
  };
  const viber = of("viber");
  const sms = of("sms");
  return {
    provider: viber === sms ? viber : channelRouter({ viber, sms }),
    sandbox: built.has("sandbox"),
    callbacks(deps) {
      const mounts: Mount[] = [];
      if (settings.twilio !== null && built.has("twilio")) {
        mounts.push({
          prefix: `${PROVIDERS_PATH}/twilio`,
          app: twilioCallbacks({
            deps,
            authToken: settings.twilio.authToken,
            publicBaseUrl: callbackBase("twilio"),
            logger,
          }),
        });
      }
      if (settings.infobip !== null && built.has("infobip")) {
        mounts.push({
          prefix: `${PROVIDERS_PATH}/infobip`,
          app: infobipCallbacks({ deps, secretKey, logger }),
        });
      }
      if (settings.vonage !== null && built.has("vonage")) {
        mounts.push({
          prefix: `${PROVIDERS_PATH}/vonage`,
          app: vonageCallbacks({
            deps,
            signatureSecret: settings.vonage.signatureSecret,
            apiKey: settings.vonage.apiKey ?? undefined,
            logger,
          }),
        });
      }
      return mounts;
    },
  };
}
