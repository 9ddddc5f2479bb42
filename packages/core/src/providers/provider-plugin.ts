import type { Deps } from "../deps.js";
import type { Channel, ChannelProvider, Clock, InboundSink } from "../ports.js";
import { parseUrl } from "../support/url.js";
import type { CallbackApp } from "./callback-app.js";
import type { CredentialsCheck } from "./credentials-check.js";
import type { ProviderTransport } from "./http-provider.js";
import type { ProviderLimits } from "./provider-limits.js";
import type { ProviderLogger } from "./provider-logger.js";
import type { ProviderRequestSeen } from "./provider-span.js";

/**
 * One setting, declared once: the server's settings table, the start-up checks and the docs'
 * table are all read from these. `default` is what an unset variable means, in the docs' words
 * (`null`: required, or nothing).
 */
export interface SettingDeclaration {
  /** The environment variable: `TIDINGS_TWILIO_AUTH_TOKEN`. */
  env: string;
  kind: "text" | "secret" | "url" | "integer" | "flag" | "json" | "list" | "duration" | "choice";
  /** Whether it must be set (default: no). */
  required?: boolean | undefined;
  /** Required once this other variable is set (a key and its secret go together). */
  requiredWith?: string | undefined;
  /**
   * The default as the docs show it, e.g. `10000`; `null` or left out when required, or when
   * an unset variable means nothing (`(none)`).
   */
  default?: string | null | undefined;
  /** One line: what it is for. */
  doc: string;
}

/** How a plugin reads its settings: trimmed values (empty is unset) and shared checks. */
export interface SettingsReader {
  /** Whether `TIDINGS_DEV=1` (local fakes on http or loopback are allowed then). */
  dev: boolean;
  /** The variable's trimmed value, or `null` when unset or empty. */
  value(env: string): string | null;
  /**
   * An API origin (https; http or loopback only in dev, for local fakes), without a trailing
   * slash, or `null` after recording why not.
   */
  origin(env: string, fallback: string): string | null;
  /** Records a problem (one sentence naming the variable). */
  problem(sentence: string): void;
}

/** What a provider is built with, by the host. */
export interface ProviderHost<P extends string = string> {
  /** `TIDINGS_PROVIDER_TIMEOUT_MS`: the deadline of one send, retries included. */
  timeoutMs: number;
  /** Makes the provider's HTTP requests (core does no I/O; the server gives undici's). */
  transport: ProviderTransport;
  clock: Clock;
  logger: ProviderLogger;
  onRequest?: ((seen: ProviderRequestSeen<P>) => void) | undefined;
  /** `{public URL}/providers/{name}`, known once the server listens. */
  callbackBaseUrl: () => string;
  /** The server's secret key (callback tokens are derived from it). */
  secretKey: Uint8Array;
}

/** What a provider's callback and inbound routes are built with. */
export interface ProviderRoutesHost {
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">;
  logger: ProviderLogger;
  /** Where verified inbound messages go. */
  inbound: InboundSink;
  /** `{public URL}/providers/{name}`, which signed callbacks may cover. */
  callbackBaseUrl: () => string;
  secretKey: Uint8Array;
}

/**
 * A provider as one object: its name, what it carries and takes, the settings it declares, and
 * how the host builds its sender, its routes (mounted at `/providers/{name}`) and its
 * credentials check from them. The server, the CLI and the settings checks loop over a
 * registry of these, so a new provider is one package and one line there.
 */
export interface ProviderPlugin<S = unknown, P extends string = string> {
  /** `TIDINGS_PROVIDER`'s value: `twilio`. */
  name: P;
  /** How it is named in sentences: `Twilio`. */
  title: string;
  channels: readonly Channel[];
  /** The longest text per channel and the TTL range per channel, as data. */
  limits: ProviderLimits;
  /** Its `TIDINGS_{NAME}_*` variables; a required one unset is reported by the host. */
  settings: readonly SettingDeclaration[];
  /**
   * Its settings, read and checked (called only when a channel uses it, after the required
   * ones were found set); `null` when a problem was recorded.
   */
  read(reader: SettingsReader): S | null;
  create(settings: S, host: ProviderHost<P>): ChannelProvider;
  /** Its status callbacks and inbound route, one app mounted at `/providers/{name}`. */
  callbacks(settings: S, host: ProviderRoutesHost): CallbackApp;
  /** Its cheapest authenticated read (`tidings providers check`). */
  checkCredentials(
    settings: S,
    options: { timeoutMs: number; transport: ProviderTransport },
  ): Promise<CredentialsCheck>;
}

/** A `SettingsReader` over an environment, recording problems in `problems`. */
export function settingsReader(
  env: Record<string, string | undefined>,
  dev: boolean,
  problems: string[],
): SettingsReader {
  const value = (name: string): string | null => env[name]?.trim() || null;
  return {
    dev,
    value,
    problem: (sentence) => problems.push(sentence),
    origin(name, fallback) {
      const text = value(name) ?? fallback;
      const url = parseUrl(text);
      if (!url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash) {
        problems.push(
          `${name} must be an https URL (an origin, without query or fragment), not ${JSON.stringify(text)}.`,
        );
        return null;
      }
      const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
      if (!dev && (url.protocol === "http:" || loopback)) {
        problems.push(
          `${name} may be http or a loopback address only with TIDINGS_DEV=1 (it is for local fakes), not ${JSON.stringify(text)}.`,
        );
        return null;
      }
      return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
    },
  };
}

/**
 * The declaration of a provider's API origin (`TIDINGS_{NAME}_API_URL`): optional, `fallback`
 * when unset, read with `reader.origin(setting.env, setting.default)`.
 */
export const apiOriginSetting = (
  env: string,
  fallback: string,
  what = "the API origin",
): SettingDeclaration & { default: string } => ({
  env,
  kind: "url",
  required: false,
  default: fallback,
  doc: `${what}; a local fake's only with TIDINGS_DEV=1`,
});
