// A provider for "Acme SMS", a made-up HTTP gateway, built on core's provider kit: the HTTP
// skeleton sends, a signed callback route reports, and a plugin ties both to their settings.
import { createHmac, timingSafeEqual } from "node:crypto";
import {
  apiOriginSetting,
  bodyText,
  type ChannelProvider,
  checkByRead,
  emptyAnswer,
  type HttpProviderOptions,
  type HttpProviderSpec,
  headerOf,
  httpProvider,
  type ProviderIdentity,
  type ProviderPlugin,
  type ProviderReport,
  type ProviderRoutesHost,
  postRoutes,
  recordCallbackReport,
  type Verified,
  verifyTimestamped,
} from "@tidings/core";

/** Who the provider is, for its spec and its plugin alike. */
export const ACME: ProviderIdentity<"acme"> = {
  name: "acme",
  title: "Acme SMS",
  channels: ["sms"],
  limits: { text: { sms: 918 }, ttlSeconds: { sms: { min: 60, max: 86_400 } } },
};

export interface AcmeSettings {
  apiKey: string;
  webhookSecret: string;
  apiUrl: string;
}

/**
 * The request of one message and how to read Acme's answers. Acme has no idempotency key, so a
 * request that may have reached it is never sent again (`retryUnknownOutcome: false`).
 */
export function acmeSpec(
  settings: Pick<AcmeSettings, "apiKey" | "apiUrl">,
  callbackBaseUrl: () => string,
): HttpProviderSpec<"acme"> {
  return {
    ...ACME,
    retryUnknownOutcome: false,
    request: (message) => ({
      method: "POST",
      url: `${settings.apiUrl}/messages`,
      headers: { "content-type": "application/json", authorization: `Bearer ${settings.apiKey}` },
      body: JSON.stringify({
        from: message.sender,
        to: message.phoneNumber,
        text: message.body,
        ttl: message.ttlSeconds,
        // Reports come back to the status route, which the message id rides on.
        status_url: `${callbackBaseUrl()}/status?m=${message.messageId}`,
      }),
    }),
    accepted: ({ body }) => ({
      accepted: true,
      providerMessageId: typeof body.id === "string" ? body.id : null,
    }),
    errorOf: ({ status, body }) => {
      const error = (body.error ?? {}) as { code?: unknown; message?: unknown };
      return {
        said: typeof error.message === "string" ? error.message : `HTTP ${status}`,
        code: typeof error.code === "string" ? error.code : null,
      };
    },
  };
}

/** Acme as a `ChannelProvider`: the skeleton owns retries, the deadline, the breaker, metrics. */
export const acmeProvider = (
  settings: Pick<AcmeSettings, "apiKey" | "apiUrl">,
  options: HttpProviderOptions<"acme"> & { callbackBaseUrl: () => string },
): ChannelProvider => httpProvider(acmeSpec(settings, options.callbackBaseUrl), options);

/** The signature Acme sends: hex HMAC-SHA256 of `{timestamp}.{raw body}` under the secret. */
export const acmeSignature = (secret: string, timestamp: string, body: string): string =>
  createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");

/** Verifies a status webhook's signature, and that it was signed within 5 minutes of now. */
export function verifyAcmeWebhook(
  secret: string,
  headers: { signature: string | null; timestamp: string | null },
  body: string,
  nowMs: number,
): Verified {
  return verifyTimestamped(headers, nowMs, (signature, timestamp) => {
    const expected = Buffer.from(acmeSignature(secret, timestamp, body));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** What Acme's statuses mean; any other (`queued`, `sent`) changes nothing. */
const REPORTS: Readonly<Record<string, ProviderReport>> = {
  delivered: "delivered",
  failed: "failed",
  expired: "expired",
};

/**
 * Acme's status webhooks, mounted at `/providers/acme`: `POST /status?m={message_id}`, JSON
 * `{ id, status, error_code? }`, signed. Unsigned, forged or stale: 403 and nothing changes.
 * Otherwise 200 with an empty body once the report is stored (also when it changes nothing).
 */
export function acmeCallbacks(
  host: Pick<ProviderRoutesHost, "deps" | "logger">,
  webhookSecret: string,
) {
  const { deps, logger } = host;
  return postRoutes("acme", logger, {
    async "/status"(request, route, query) {
      const body = bodyText(request.body);
      const headers = {
        signature: headerOf(request, "x-acme-signature"),
        timestamp: headerOf(request, "x-acme-timestamp"),
      };
      const verdict = verifyAcmeWebhook(webhookSecret, headers, body, deps.clock.now());
      if (!verdict.ok) {
        logger.warn("acme webhook refused", { route, reason: verdict.reason });
        return emptyAnswer(403, route);
      }
      let update: { id?: unknown; status?: unknown; error_code?: unknown };
      try {
        update = JSON.parse(body) ?? {};
      } catch {
        return emptyAnswer(400, route);
      }
      const status = REPORTS[String(update.status)];
      if (status === undefined) return emptyAnswer(200, route);
      await recordCallbackReport(deps, logger, {
        messageId: query.get("m") ?? "",
        channel: "sms",
        provider: "acme",
        providerMessageId: typeof update.id === "string" ? update.id : null,
        status,
        providerCode: typeof update.error_code === "string" ? update.error_code : null,
      });
      return emptyAnswer(200, route);
    },
  });
}

const API_URL = apiOriginSetting("TIDINGS_ACME_API_URL", "https://api.acme-sms.example");

/** Acme as a provider plugin: what a server's registry loops over. */
export const acmePlugin: ProviderPlugin<AcmeSettings, "acme"> = {
  ...ACME,
  settings: [
    {
      env: "TIDINGS_ACME_API_KEY",
      kind: "secret",
      required: true,
      doc: "the API key, sent as Authorization: Bearer",
    },
    {
      env: "TIDINGS_ACME_WEBHOOK_SECRET",
      kind: "secret",
      required: true,
      doc: "the secret Acme signs status webhooks with",
    },
    API_URL,
  ],
  read(reader) {
    const apiUrl = reader.origin(API_URL.env, API_URL.default);
    const apiKey = reader.value("TIDINGS_ACME_API_KEY");
    const webhookSecret = reader.value("TIDINGS_ACME_WEBHOOK_SECRET");
    if (apiUrl === null || apiKey === null || webhookSecret === null) return null;
    return { apiKey, webhookSecret, apiUrl };
  },
  create: (settings, host) => acmeProvider(settings, host),
  callbacks: (settings, host) => acmeCallbacks(host, settings.webhookSecret),
  checkCredentials: (settings, options) =>
    checkByRead(
      options.transport,
      ACME.title,
      {
        method: "GET",
        url: `${settings.apiUrl}/account`,
        headers: { authorization: `Bearer ${settings.apiKey}` },
      },
      options,
      ({ status }) => (status === 200 ? { outcome: "ok", detail: "Acme took the API key." } : null),
    ),
};
