import {
  type Channel,
  PROVIDER_TIMEOUT_MS,
  type ProviderPlugin,
  settingsReader,
} from "@tidings/core";
import { type FailoverConfig, readFailoverConfig } from "./failover-config.js";
import {
  channelsOf,
  PROVIDER_NAMES,
  PROVIDER_PLUGINS,
  type ProviderName,
  type RealProviderName,
  type SettingsOf,
  titleOf,
} from "./provider-registry.js";

export type { ProviderName } from "./provider-registry.js";
export { PROVIDER_NAMES } from "./provider-registry.js";

type Plugins = typeof PROVIDER_PLUGINS;

/** Which provider carries each channel, and the settings of the real ones in use. */
export type ProviderConfig = {
  viber: ProviderName;
  sms: ProviderName;
  /** `TIDINGS_PROVIDER_TIMEOUT_MS`: the deadline of one send to a provider, retries included. */
  timeoutMs: number;
  /** Each channel's ordered provider list (`viber` and `sms` are their first) and its failover. */
  failover: FailoverConfig;
} & {
  /** Each real provider's settings, set when a channel uses it. */
  [P in RealProviderName]: SettingsOf<Plugins[P]> | null;
};

type Env = Record<string, string | undefined>;

const setting = (env: Env, name: string): string | null => env[name]?.trim() || null;

/** The provider chosen for a channel, with the variable that chose it (named in messages). */
interface Choice {
  name: ProviderName;
  variable: string;
}

/**
 * A plugin's settings: its required variables first (all the missing ones in one sentence,
 * naming the variable that chose it), then its own checks.
 */
function readPlugin(
  plugin: ProviderPlugin,
  env: Env,
  dev: boolean,
  errors: string[],
  chosenBy: string,
): unknown {
  const missing = plugin.settings
    .filter(
      (s) =>
        setting(env, s.env) === null &&
        (s.required || (s.requiredWith !== undefined && setting(env, s.requiredWith) !== null)),
    )
    .map((s) => s.env);
  if (missing.length > 0) {
    errors.push(
      `${chosenBy} is ${plugin.name}, which needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"}.`,
    );
  }
  const settings = plugin.read(settingsReader(env, dev, errors));
  return missing.length > 0 ? null : settings;
}

/**
 * Reads `TIDINGS_PROVIDER` and its per-channel overrides, and the settings of every real
 * provider chosen, pushing one sentence per problem: an unknown name, a provider that lacks
 * the channel, each provider's missing variables (all of them at once), a malformed value,
 * and, outside development, a public URL that is not https (callbacks must reach the server).
 */
export function readProviderConfig(
  env: Env,
  context: { dev: boolean; publicUrl: string | null },
  errors: string[],
): ProviderConfig {
  const names = PROVIDER_NAMES.join(", ");
  const parse = (variable: string, text: string): ProviderName | null => {
    if ((PROVIDER_NAMES as readonly string[]).includes(text)) return text as ProviderName;
    errors.push(`${variable} must be one of ${names}, not ${JSON.stringify(text)}.`);
    return null;
  };
  // Each variable takes an ordered list for failover (`twilio,vonage`), each name once.
  const parseList = (variable: string, text: string): ProviderName[] | null => {
    const names = text.split(",").map((name) => parse(variable, name.trim()));
    if (names.some((name) => name === null)) return null;
    if (new Set(names).size < names.length) {
      errors.push(`${variable} names a provider twice: ${JSON.stringify(text)}.`);
      return null;
    }
    return names as ProviderName[];
  };
  const base = parseList("TIDINGS_PROVIDER", setting(env, "TIDINGS_PROVIDER") ?? "sandbox");
  const chooseOne = (channel: Channel, name: ProviderName, chosenBy: string): Choice | null => {
    const variable = channel === "viber" ? "TIDINGS_PROVIDER_VIBER" : "TIDINGS_PROVIDER_SMS";
    const carries = channelsOf(name);
    if (!carries.includes(channel)) {
      errors.push(
        `${chosenBy} is ${name}, but ${titleOf(name)} carries ${carries.join(" and ")} only, not ${channel}: set ${variable} to a provider that carries ${channel} (${PROVIDER_NAMES.filter((p) => channelsOf(p).includes(channel)).join(", ")}).`,
      );
      return null;
    }
    return { name, variable: chosenBy };
  };
  const choose = (channel: Channel): Choice[] => {
    const variable = channel === "viber" ? "TIDINGS_PROVIDER_VIBER" : "TIDINGS_PROVIDER_SMS";
    const own = setting(env, variable);
    const names = own === null ? base : parseList(variable, own);
    const chosenBy = own === null ? "TIDINGS_PROVIDER" : variable;
    const choices = (names ?? []).map((name) => chooseOne(channel, name, chosenBy));
    return choices.every((c) => c !== null) ? (choices as Choice[]) : [];
  };
  const viberList = choose("viber");
  const smsList = choose("sms");
  const viber = viberList[0] ?? null;
  const sms = smsList[0] ?? null;
  const chosen = [...viberList, ...smsList];
  const settings = Object.fromEntries(
    Object.entries(PROVIDER_PLUGINS).map(([name, plugin]) => {
      const choice = chosen.find((c) => c.name === name);
      return [
        name,
        choice === undefined
          ? null
          : readPlugin(plugin as ProviderPlugin, env, context.dev, errors, choice.variable),
      ];
    }),
  ) as { [P in RealProviderName]: SettingsOf<Plugins[P]> | null };
  const real = chosen.find((c) => c.name !== "sandbox");
  if (real !== undefined && !context.dev && !context.publicUrl?.startsWith("https://")) {
    errors.push(
      `TIDINGS_PUBLIC_URL must be the https URL at which ${titleOf(real.name)} reaches this server (its callbacks go to TIDINGS_PUBLIC_URL/providers/${real.name}/…), since ${real.variable} is ${real.name}.`,
    );
  }
  const timeoutText = setting(env, "TIDINGS_PROVIDER_TIMEOUT_MS") ?? String(PROVIDER_TIMEOUT_MS);
  const timeoutMs = /^[0-9]{1,6}$/.test(timeoutText) ? Number(timeoutText) : Number.NaN;
  if (!(timeoutMs >= 100 && timeoutMs <= 120_000)) {
    errors.push(
      `TIDINGS_PROVIDER_TIMEOUT_MS must be a whole number from 100 to 120000, not ${JSON.stringify(timeoutText)}.`,
    );
  }
  return {
    viber: viber?.name ?? "sandbox",
    sms: sms?.name ?? "sandbox",
    timeoutMs: Number.isNaN(timeoutMs) ? PROVIDER_TIMEOUT_MS : timeoutMs,
    ...settings,
    failover: readFailoverConfig(
      env,
      { viber: viberList.map((c) => c.name), sms: smsList.map((c) => c.name) },
      errors,
    ),
  };
}

/** The providers in use, each once (every provider of a failover list). */
export const providersInUse = (
  config: Pick<ProviderConfig, "viber" | "sms"> & { failover?: FailoverConfig | undefined },
): ProviderName[] => [
  ...new Set([
    config.viber,
    config.sms,
    ...((config.failover?.viber ?? []) as ProviderName[]),
    ...((config.failover?.sms ?? []) as ProviderName[]),
  ]),
];
