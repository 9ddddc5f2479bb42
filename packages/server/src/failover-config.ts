import type { Channel } from "@tidings/core";

type Env = Record<string, string | undefined>;

/** How each channel fails over between the providers of its list. */
export interface FailoverConfig {
  /** `TIDINGS_PROVIDER_VIBER` as a list, in order (one provider: no failover). */
  viber: string[];
  /** `TIDINGS_PROVIDER_SMS` as a list, in order. */
  sms: string[];
  /** `TIDINGS_FAILOVER_ON_TIMEOUT=1`: a timeout or 5xx fails over too (a duplicate is possible). */
  onTimeout: boolean;
  /**
   * `TIDINGS_<PROVIDER>_SENDERS` of each provider in a list: the campaign's sender → the sender
   * on that provider's account (numbers, registrations and Viber service ids belong to accounts).
   */
  senders: Record<string, Record<string, string>>;
}

/** The `listening` line's `failover` field: each channel's list, when some channel has one. */
export const failoverLogged = (
  failover: FailoverConfig,
): { failover?: { viber: string[]; sms: string[]; on_timeout: boolean } } =>
  failover.viber.length > 1 || failover.sms.length > 1
    ? { failover: { viber: failover.viber, sms: failover.sms, on_timeout: failover.onTimeout } }
    : {};

/** The variable of `provider`'s senders: `TIDINGS_VONAGE_SENDERS`. */
export const sendersVariable = (provider: string): string =>
  `TIDINGS_${provider.toUpperCase()}_SENDERS`;

/** A `TIDINGS_<PROVIDER>_SENDERS` value: a JSON object of sender → sender (`{}` after an error). */
function readSenders(variable: string, text: string, errors: string[]): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.entries(parsed).every(
      ([from, to]) => from.trim() !== "" && typeof to === "string" && to.trim() !== "",
    );
  if (!valid) {
    errors.push(
      `${variable} must be a JSON object of a campaign's sender to the sender on that provider, e.g. {"+15550001":"15550001"}.`,
    );
    return {};
  }
  return { ...(parsed as Record<string, string>) };
}

/**
 * Reads the failover settings of the channels' provider lists (`lists`, each in order, the
 * first the provider every message tries first), pushing one sentence per problem: a
 * malformed senders map or switch, and a Viber list whose later providers map no sender (Viber
 * service ids are always the account's own, so such a list could never fail over).
 */
export function readFailoverConfig(
  env: Env,
  lists: Readonly<Record<Channel, readonly string[]>>,
  errors: string[],
): FailoverConfig {
  const onTimeoutText = env.TIDINGS_FAILOVER_ON_TIMEOUT?.trim() || "0";
  if (onTimeoutText !== "0" && onTimeoutText !== "1") {
    errors.push(
      `TIDINGS_FAILOVER_ON_TIMEOUT must be 1 (a timeout or 5xx fails over too) or 0, not ${JSON.stringify(onTimeoutText)}.`,
    );
  }
  const senders: Record<string, Record<string, string>> = {};
  for (const name of new Set([...lists.viber, ...lists.sms])) {
    const variable = sendersVariable(name);
    const text = env[variable]?.trim();
    if (text) senders[name] = readSenders(variable, text, errors);
  }
  const later = lists.viber.slice(1);
  const mapsNothing = later.filter((name) => Object.keys(senders[name] ?? {}).length === 0);
  if (later.length > 0 && mapsNothing.length === later.length) {
    errors.push(
      `TIDINGS_PROVIDER_VIBER lists ${lists.viber.join(",")}, but ${later.map(sendersVariable).join(" and ")} ${later.length === 1 ? "maps" : "map"} no sender, so no Viber message could fail over: map each campaign's Viber service id to the one on ${later.join(" and ")}.`,
    );
  }
  return {
    viber: [...lists.viber],
    sms: [...lists.sms],
    onTimeout: onTimeoutText === "1",
    senders,
  };
}
