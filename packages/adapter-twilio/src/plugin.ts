import { apiOriginSetting, type ProviderPlugin, type SettingsReader } from "@tidings/core";
import { twilioCallbacks } from "./callback-handler.js";
import { checkTwilioCredentials } from "./credentials-check.js";
import { twilioPriceFetcher } from "./price-fetch.js";
import { TWILIO_LIMITS, twilioProvider } from "./twilio-provider.js";

const API_URL = apiOriginSetting(
  "TIDINGS_TWILIO_API_URL",
  "https://api.twilio.com",
  "Twilio's API origin",
);

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

/** `TIDINGS_TWILIO_WEBHOOK_KEYS`: a JSON object of key id → secret (never echoed back). */
function readWebhookKeys(reader: SettingsReader): Record<string, string> {
  const text = reader.value("TIDINGS_TWILIO_WEBHOOK_KEYS");
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
    reader.problem(
      'TIDINGS_TWILIO_WEBHOOK_KEYS must be a JSON object of webhook signing key id to its secret, e.g. {"webhooks_sharedkey_…":"…"}.',
    );
    return {};
  }
  return { ...(parsed as Record<string, string>) };
}

/** A value that must match `pattern`, else a problem naming the variable. */
function matching(reader: SettingsReader, env: string, pattern: RegExp, what: string) {
  const value = reader.value(env);
  if (value !== null && !pattern.test(value)) reader.problem(`${env} must be ${what}.`);
  return value;
}

/** Twilio Programmable Messaging (SMS) as a provider plugin. */
export const twilioPlugin: ProviderPlugin<TwilioSettings, "twilio"> = {
  name: "twilio",
  title: "Twilio",
  channels: ["sms"],
  limits: TWILIO_LIMITS,
  settings: [
    {
      env: "TIDINGS_TWILIO_ACCOUNT_SID",
      kind: "text",
      required: true,
      default: null,
      doc: "the Account SID, AC and 32 hex digits",
    },
    {
      env: "TIDINGS_TWILIO_AUTH_TOKEN",
      kind: "secret",
      required: true,
      default: null,
      doc: "signs Twilio's callbacks, and sends unless an API key is set",
    },
    {
      env: "TIDINGS_TWILIO_API_KEY_SID",
      kind: "text",
      required: false,
      requiredWith: "TIDINGS_TWILIO_API_KEY_SECRET",
      default: "(none)",
      doc: "an API key (SK…) to send with, with its secret",
    },
    {
      env: "TIDINGS_TWILIO_API_KEY_SECRET",
      kind: "secret",
      required: false,
      requiredWith: "TIDINGS_TWILIO_API_KEY_SID",
      default: "(none)",
      doc: "the API key's secret",
    },
    {
      env: "TIDINGS_TWILIO_MESSAGING_SERVICE_SID",
      kind: "text",
      required: false,
      default: "(none)",
      doc: "send through this Messaging Service (MG…) instead of From",
    },
    API_URL,
    {
      env: "TIDINGS_TWILIO_WEBHOOK_KEYS",
      kind: "json",
      required: false,
      default: "(none)",
      doc: "JSON, webhook signing key id → its secret (HMAC-SHA256 signing)",
    },
    {
      env: "TIDINGS_TWILIO_FETCH_PRICE",
      kind: "flag",
      required: false,
      default: "0",
      doc: "1: read each message's price from Twilio after its final status",
    },
    {
      env: "TIDINGS_TWILIO_PRICE_DELAY_MS",
      kind: "integer",
      required: false,
      default: "10000",
      doc: "the wait after a final status before the price is read (1–3600000)",
    },
  ],
  read(reader) {
    const accountSid = matching(
      reader,
      "TIDINGS_TWILIO_ACCOUNT_SID",
      /^AC[0-9a-fA-F]{32}$/,
      "AC followed by 32 hexadecimal digits (the Account SID of the Twilio console)",
    );
    const apiKeySid = matching(
      reader,
      "TIDINGS_TWILIO_API_KEY_SID",
      /^SK[0-9a-fA-F]{32}$/,
      "SK followed by 32 hexadecimal digits",
    );
    const apiKeySecret = reader.value("TIDINGS_TWILIO_API_KEY_SECRET");
    const service = matching(
      reader,
      "TIDINGS_TWILIO_MESSAGING_SERVICE_SID",
      /^MG[0-9a-fA-F]{32}$/,
      "MG followed by 32 hexadecimal digits",
    );
    const apiUrl = reader.origin(API_URL.env, API_URL.default);
    const authToken = reader.value("TIDINGS_TWILIO_AUTH_TOKEN");
    const webhookKeys = readWebhookKeys(reader);
    const fetchPriceText = reader.value("TIDINGS_TWILIO_FETCH_PRICE") ?? "0";
    if (fetchPriceText !== "0" && fetchPriceText !== "1") {
      reader.problem(
        `TIDINGS_TWILIO_FETCH_PRICE must be 1 (read each message's price from Twilio) or 0, not ${JSON.stringify(fetchPriceText)}.`,
      );
    }
    const priceDelayText = reader.value("TIDINGS_TWILIO_PRICE_DELAY_MS") ?? "10000";
    const priceDelayMs = Number(priceDelayText);
    if (!/^[0-9]+$/.test(priceDelayText) || priceDelayMs < 1 || priceDelayMs > 3_600_000) {
      reader.problem(
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
  },
  create: (settings, host) =>
    twilioProvider({
      accountSid: settings.accountSid,
      authToken: settings.authToken,
      apiKeySid: settings.apiKeySid ?? undefined,
      apiKeySecret: settings.apiKeySecret ?? undefined,
      messagingServiceSid: settings.messagingServiceSid ?? undefined,
      apiUrl: settings.apiUrl,
      callbackBaseUrl: host.callbackBaseUrl,
      timeoutMs: host.timeoutMs,
      transport: host.transport,
      clock: host.clock,
      logger: host.logger,
      onRequest: host.onRequest,
    }),
  callbacks(settings, host) {
    const prices = settings.fetchPrice
      ? twilioPriceFetcher({
          accountSid: settings.accountSid,
          authToken: settings.authToken,
          apiKeySid: settings.apiKeySid ?? undefined,
          apiKeySecret: settings.apiKeySecret ?? undefined,
          apiUrl: settings.apiUrl,
          deps: host.deps,
          logger: host.logger,
          // Read after the wait, and again after 12 and 90 times it while Twilio has no price.
          delaysMs: [1, 12, 90].map((times) => times * settings.priceDelayMs),
        })
      : null;
    const app = twilioCallbacks({
      deps: host.deps,
      authToken: settings.authToken,
      webhookKeys: settings.webhookKeys,
      publicBaseUrl: host.callbackBaseUrl,
      logger: host.logger,
      inbound: host.inbound,
      onFinal: prices === null ? undefined : (id, sid) => prices.fetchLater(id, sid),
    });
    return prices === null ? app : { ...app, close: () => prices.close() };
  },
  checkCredentials: checkTwilioCredentials,
};
