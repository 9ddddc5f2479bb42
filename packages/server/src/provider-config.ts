import { createPrivateKey } from "node:crypto";
import { inboundTokenProblem } from "@tidings/adapter-infobip";
import type { Channel } from "@tidings/core";
import { parseUrl } from "@tidings/core";
import { type FailoverConfig, readFailoverConfig } from "./failover-config.js";

/** The providers a server can route a channel to. */
export const PROVIDER_NAMES = ["sandbox", "twilio", "infobip", "vonage"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** The channels each provider carries. */
const CARRIES: Record<ProviderName, readonly Channel[]> = {
  sandbox: ["viber", "sms"],
  twilio: ["sms"],
  infobip: ["viber", "sms"],
  vonage: ["viber", "sms"],
};

/** How a provider is named in sentences. */
const TITLES: Record<ProviderName, string> = {
  sandbox: "The sandbox",
  twilio: "Twilio",
  infobip: "Infobip",
  vonage: "Vonage",
};

/** Twilio's settings (`TIDINGS_TWILIO_*`). */
export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  apiKeySid: string | null;
  apiKeySecret: string | null;
  messagingServiceSid: string | null;
  apiUrl: string;
  /** `TIDINGS_TWILIO_WEBHOOK_KEYS`: webhook signing key id → its secret (HMAC-SHA256 signing). */
  webhookKeys: Record<string, string>;
  /** `TIDINGS_TWILIO_FETCH_PRICE=1`: read each message's price from Twilio after its final status. */
  fetchPrice: boolean;
  /** `TIDINGS_TWILIO_PRICE_DELAY_MS`: the wait after a final status before the price is read. */
  priceDelayMs: number;
}

/** Infobip's settings (`TIDINGS_INFOBIP_*`). */
export interface InfobipSettings {
  /** The account's base URL, `https://{xxxxx}.api.infobip.com`. */
  baseUrl: string;
  apiKey: string;
  /**
   * `TIDINGS_INFOBIP_INBOUND_TOKENS`: the tokens `/providers/infobip/inbound/{token}` accepts
   * (none: that route is 404).
   */
  inboundTokens: string[];
  /** `TIDINGS_INFOBIP_IDEMPOTENT=1`: the account has Infobip's opt-in idempotent sending. */
  idempotent: boolean;
}

/** Vonage's settings (`TIDINGS_VONAGE_*`). */
export interface VonageSettings {
  applicationId: string;
  /** The application's private key, PEM text. */
  privateKey: string;
  signatureSecret: string;
  apiKey: string | null;
  apiSecret: string | null;
  apiUrl: string;
  restUrl: string;
}

/** Which provider carries each channel, and the settings of the real ones in use. */
export interface ProviderConfig {
  viber: ProviderName;
  sms: ProviderName;
  /** `TIDINGS_PROVIDER_TIMEOUT_MS`: the deadline of one send to a provider, retries included. */
  timeoutMs: number;
  /** Set when a channel uses Twilio. */
  twilio: TwilioSettings | null;
  /** Set when a channel uses Infobip. */
  infobip: InfobipSettings | null;
  /** Set when a channel uses Vonage. */
  vonage: VonageSettings | null;
  /** Each channel's ordered provider list (`viber` and `sms` are their first) and its failover. */
  failover: FailoverConfig;
}

/** Each provider's variables: the required ones, then the optional ones. */
export const PROVIDER_VARIABLES = {
  twilio: {
    required: ["TIDINGS_TWILIO_ACCOUNT_SID", "TIDINGS_TWILIO_AUTH_TOKEN"],
    optional: [
      "TIDINGS_TWILIO_API_KEY_SID",
      "TIDINGS_TWILIO_API_KEY_SECRET",
      "TIDINGS_TWILIO_MESSAGING_SERVICE_SID",
      "TIDINGS_TWILIO_API_URL",
      "TIDINGS_TWILIO_WEBHOOK_KEYS",
      "TIDINGS_TWILIO_FETCH_PRICE",
      "TIDINGS_TWILIO_PRICE_DELAY_MS",
    ],
  },
  infobip: {
    required: ["TIDINGS_INFOBIP_BASE_URL", "TIDINGS_INFOBIP_API_KEY"],
    optional: ["TIDINGS_INFOBIP_INBOUND_TOKENS", "TIDINGS_INFOBIP_IDEMPOTENT"],
  },
  vonage: {
    required: [
      "TIDINGS_VONAGE_APPLICATION_ID",
      "TIDINGS_VONAGE_PRIVATE_KEY",
      "TIDINGS_VONAGE_SIGNATURE_SECRET",
    ],
    optional: [
      "TIDINGS_VONAGE_API_KEY",
      "TIDINGS_VONAGE_API_SECRET",
      "TIDINGS_VONAGE_API_URL",
      "TIDINGS_VONAGE_REST_URL",
    ],
  },
} as const;

type Env = Record<string, string | undefined>;

const setting = (env: Env, name: string): string | null => env[name]?.trim() || null;

/** The provider chosen for a channel, with the variable that chose it (named in messages). */
interface Choice {
  name: ProviderName;
  variable: string;
}

/**
 * An origin for a provider's API: https, or (only with `TIDINGS_DEV=1`) http or loopback, so
 * tests can point it at a local fake; `null` after pushing why not.
 */
function originOf(variable: string, text: string, dev: boolean, errors: string[]): string | null {
  const url = parseUrl(text);
  if (!url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash) {
    errors.push(
      `${variable} must be an https URL (an origin, without query or fragment), not ${JSON.stringify(text)}.`,
    );
    return null;
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (!dev && (url.protocol === "http:" || loopback)) {
    errors.push(
      `${variable} may be http or a loopback address only with TIDINGS_DEV=1 (it is for local fakes), not ${JSON.stringify(text)}.`,
    );
    return null;
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** `TIDINGS_TWILIO_WEBHOOK_KEYS`: a JSON object of key id → secret (never echoed back). */
function readWebhookKeys(text: string | null, errors: string[]): Record<string, string> {
  if (text === null) return {};
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
    Object.values(parsed).every((secret) => typeof secret === "string" && secret !== "");
  if (!valid) {
    errors.push(
      'TIDINGS_TWILIO_WEBHOOK_KEYS must be a JSON object of webhook signing key id to its secret, e.g. {"webhooks_sharedkey_…":"…"}.',
    );
    return {};
  }
  return { ...(parsed as Record<string, string>) };
}

function readTwilio(
  env: Env,
  dev: boolean,
  errors: string[],
  chosenBy: string,
): TwilioSettings | null {
  const missing: string[] = PROVIDER_VARIABLES.twilio.required.filter(
    (name) => setting(env, name) === null,
  );
  const apiKeySid = setting(env, "TIDINGS_TWILIO_API_KEY_SID");
  const apiKeySecret = setting(env, "TIDINGS_TWILIO_API_KEY_SECRET");
  if (apiKeySid !== null && apiKeySecret === null) missing.push("TIDINGS_TWILIO_API_KEY_SECRET");
  if (apiKeySecret !== null && apiKeySid === null) missing.push("TIDINGS_TWILIO_API_KEY_SID");
  if (missing.length > 0) {
    errors.push(
      `${chosenBy} is twilio, which needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"}.`,
    );
  }
  const accountSid = setting(env, "TIDINGS_TWILIO_ACCOUNT_SID");
  if (accountSid !== null && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) {
    errors.push(
      "TIDINGS_TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits (the Account SID of the Twilio console).",
    );
  }
  if (apiKeySid !== null && !/^SK[0-9a-fA-F]{32}$/.test(apiKeySid)) {
    errors.push("TIDINGS_TWILIO_API_KEY_SID must be SK followed by 32 hexadecimal digits.");
  }
  const service = setting(env, "TIDINGS_TWILIO_MESSAGING_SERVICE_SID");
  if (service !== null && !/^MG[0-9a-fA-F]{32}$/.test(service)) {
    errors.push(
      "TIDINGS_TWILIO_MESSAGING_SERVICE_SID must be MG followed by 32 hexadecimal digits.",
    );
  }
  const apiUrl = originOf(
    "TIDINGS_TWILIO_API_URL",
    setting(env, "TIDINGS_TWILIO_API_URL") ?? "https://api.twilio.com",
    dev,
    errors,
  );
  const authToken = setting(env, "TIDINGS_TWILIO_AUTH_TOKEN");
  const webhookKeys = readWebhookKeys(setting(env, "TIDINGS_TWILIO_WEBHOOK_KEYS"), errors);
  const fetchPriceText = setting(env, "TIDINGS_TWILIO_FETCH_PRICE") ?? "0";
  if (fetchPriceText !== "0" && fetchPriceText !== "1") {
    errors.push(
      `TIDINGS_TWILIO_FETCH_PRICE must be 1 (read each message's price from Twilio) or 0, not ${JSON.stringify(fetchPriceText)}.`,
    );
  }
  const priceDelayText = setting(env, "TIDINGS_TWILIO_PRICE_DELAY_MS") ?? "10000";
  const priceDelayMs = Number(priceDelayText);
  if (!/^[0-9]+$/.test(priceDelayText) || priceDelayMs < 1 || priceDelayMs > 3_600_000) {
    errors.push(
      `TIDINGS_TWILIO_PRICE_DELAY_MS must be a whole number of milliseconds from 1 to 3600000, not ${JSON.stringify(priceDelayText)}.`,
    );
  }
  if (accountSid === null || authToken === null || apiUrl === null) return null;
  return {
    accountSid,
    authToken,
    apiKeySid,
    apiKeySecret,
    messagingServiceSid: service,
    apiUrl,
    webhookKeys,
    fetchPrice: fetchPriceText === "1",
    priceDelayMs,
  };
}

function readInfobip(
  env: Env,
  dev: boolean,
  errors: string[],
  chosenBy: string,
): InfobipSettings | null {
  const missing: string[] = PROVIDER_VARIABLES.infobip.required.filter(
    (name) => setting(env, name) === null,
  );
  if (missing.length > 0) {
    errors.push(
      `${chosenBy} is infobip, which needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"}.`,
    );
  }
  const baseText = setting(env, "TIDINGS_INFOBIP_BASE_URL");
  const baseUrl =
    baseText === null ? null : originOf("TIDINGS_INFOBIP_BASE_URL", baseText, dev, errors);
  const apiKey = setting(env, "TIDINGS_INFOBIP_API_KEY");
  const inboundTokens = (setting(env, "TIDINGS_INFOBIP_INBOUND_TOKENS") ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
  inboundTokens.forEach((token, index) => {
    // Never the token itself: it is a secret.
    const problem = inboundTokenProblem(token);
    if (problem !== null) {
      errors.push(
        `TIDINGS_INFOBIP_INBOUND_TOKENS: token ${index + 1} ${problem} (a random one: openssl rand -hex 24).`,
      );
    }
  });
  const idempotentText = setting(env, "TIDINGS_INFOBIP_IDEMPOTENT") ?? "0";
  if (idempotentText !== "0" && idempotentText !== "1") {
    errors.push(
      `TIDINGS_INFOBIP_IDEMPOTENT must be 1 (the account has Infobip's idempotent sending) or 0, not ${JSON.stringify(idempotentText)}.`,
    );
  }
  return baseUrl === null || apiKey === null
    ? null
    : { baseUrl, apiKey, inboundTokens, idempotent: idempotentText === "1" };
}

function readVonage(
  env: Env,
  dev: boolean,
  errors: string[],
  chosenBy: string,
): VonageSettings | null {
  const missing: string[] = PROVIDER_VARIABLES.vonage.required.filter(
    (name) => setting(env, name) === null,
  );
  if (missing.length > 0) {
    errors.push(
      `${chosenBy} is vonage, which needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"}.`,
    );
  }
  // A PEM pasted into one line of an env file keeps its newlines as \n.
  const privateKey = setting(env, "TIDINGS_VONAGE_PRIVATE_KEY")?.replace(/\\n/g, "\n") ?? null;
  if (privateKey !== null) {
    try {
      createPrivateKey(privateKey);
    } catch {
      errors.push(
        "TIDINGS_VONAGE_PRIVATE_KEY must be the application's private key as PEM text (-----BEGIN PRIVATE KEY----- …), as Vonage's dashboard downloads it.",
      );
    }
  }
  const apiUrl = originOf(
    "TIDINGS_VONAGE_API_URL",
    setting(env, "TIDINGS_VONAGE_API_URL") ?? "https://api.nexmo.com",
    dev,
    errors,
  );
  const restUrl = originOf(
    "TIDINGS_VONAGE_REST_URL",
    setting(env, "TIDINGS_VONAGE_REST_URL") ?? "https://rest.nexmo.com",
    dev,
    errors,
  );
  const applicationId = setting(env, "TIDINGS_VONAGE_APPLICATION_ID");
  const signatureSecret = setting(env, "TIDINGS_VONAGE_SIGNATURE_SECRET");
  if (
    applicationId === null ||
    privateKey === null ||
    signatureSecret === null ||
    apiUrl === null ||
    restUrl === null
  ) {
    return null;
  }
  return {
    applicationId,
    privateKey,
    signatureSecret,
    apiKey: setting(env, "TIDINGS_VONAGE_API_KEY"),
    apiSecret: setting(env, "TIDINGS_VONAGE_API_SECRET"),
    apiUrl,
    restUrl,
  };
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
    if (!CARRIES[name].includes(channel)) {
      errors.push(
        `${chosenBy} is ${name}, but ${TITLES[name]} carries ${CARRIES[name].join(" and ")} only, not ${channel}: set ${variable} to a provider that carries ${channel} (${PROVIDER_NAMES.filter((p) => CARRIES[p].includes(channel)).join(", ")}).`,
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
  const twilioChoice = chosen.find((c) => c.name === "twilio");
  const twilio =
    twilioChoice === undefined ? null : readTwilio(env, context.dev, errors, twilioChoice.variable);
  const infobipChoice = chosen.find((c) => c.name === "infobip");
  const infobip =
    infobipChoice === undefined
      ? null
      : readInfobip(env, context.dev, errors, infobipChoice.variable);
  const vonageChoice = chosen.find((c) => c.name === "vonage");
  const vonage =
    vonageChoice === undefined ? null : readVonage(env, context.dev, errors, vonageChoice.variable);
  const real = chosen.find((c) => c.name !== "sandbox");
  if (real !== undefined && !context.dev && !context.publicUrl?.startsWith("https://")) {
    errors.push(
      `TIDINGS_PUBLIC_URL must be the https URL at which ${TITLES[real.name]} reaches this server (its callbacks go to TIDINGS_PUBLIC_URL/providers/${real.name}/…), since ${real.variable} is ${real.name}.`,
    );
  }
  const timeoutText = setting(env, "TIDINGS_PROVIDER_TIMEOUT_MS") ?? "10000";
  const timeoutMs = /^[0-9]{1,6}$/.test(timeoutText) ? Number(timeoutText) : Number.NaN;
  if (!(timeoutMs >= 100 && timeoutMs <= 120_000)) {
    errors.push(
      `TIDINGS_PROVIDER_TIMEOUT_MS must be a whole number from 100 to 120000, not ${JSON.stringify(timeoutText)}.`,
    );
  }
  return {
    viber: viber?.name ?? "sandbox",
    sms: sms?.name ?? "sandbox",
    timeoutMs: Number.isNaN(timeoutMs) ? 10_000 : timeoutMs,
    twilio,
    infobip,
    vonage,
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
