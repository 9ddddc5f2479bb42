import {
  apiOriginSetting,
  type CredentialsCheck,
  checkByRead,
  type ProviderPlugin,
  type ProviderTransport,
} from "@tidings/core";
import { telnyxCallbacks } from "./callback-handler.js";
import { TELNYX, type TelnyxSettings, telnyxProvider } from "./telnyx-provider.js";
import { telnyxPublicKey } from "./webhook-signature.js";

const API_URL = apiOriginSetting("TIDINGS_TELNYX_API_URL", "https://api.telnyx.com");

/**
 * Reads the account's balance (`GET /v2/balance`, Telnyx's read-only first request) with the
 * API key that sends: 401 is a refused key; 403 (a key kept from billing) cannot say.
 */
export function checkTelnyxCredentials(
  { apiKey, apiUrl }: Pick<TelnyxSettings, "apiKey" | "apiUrl">,
  options: { timeoutMs: number; transport: ProviderTransport },
): Promise<CredentialsCheck> {
  const headers = { authorization: `Bearer ${apiKey}`, accept: "application/json" };
  const balance = { method: "GET" as const, url: `${apiUrl}/v2/balance`, headers };
  return checkByRead(options.transport, "Telnyx", balance, options, ({ status, body }) => {
    const data = (body.data ?? {}) as Record<string, unknown>;
    if (status === 200) {
      return { outcome: "ok", detail: `Telnyx balance ${data.balance} ${data.currency}.` };
    }
    // A key may be kept from the balance and still send.
    return status === 403
      ? {
          outcome: "skipped",
          detail:
            "Telnyx would not show this key the balance (HTTP 403); the first send checks it.",
        }
      : null;
  });
}

/** Telnyx Messaging (SMS) as a provider plugin. */
export const telnyxPlugin: ProviderPlugin<TelnyxSettings, "telnyx"> = {
  ...TELNYX,
  settings: [
    {
      env: "TIDINGS_TELNYX_API_KEY",
      kind: "secret",
      required: true,
      doc: "the API key (v2), sent as Authorization: Bearer",
    },
    {
      env: "TIDINGS_TELNYX_PUBLIC_KEY",
      kind: "text",
      required: true,
      doc: "the account's webhook public key, base64 of 32 bytes",
    },
    {
      env: "TIDINGS_TELNYX_MESSAGING_PROFILE_ID",
      kind: "text",
      doc: "the messaging profile to send with",
    },
    API_URL,
  ],
  read(reader) {
    const keyText = reader.value("TIDINGS_TELNYX_PUBLIC_KEY");
    const publicKey = keyText === null ? null : telnyxPublicKey(keyText);
    if (keyText !== null && publicKey === null) {
      reader.problem(
        "TIDINGS_TELNYX_PUBLIC_KEY must be the account's public key as Mission Control shows it: base64 of 32 bytes.",
      );
    }
    const apiUrl = reader.origin(API_URL.env, API_URL.default);
    const apiKey = reader.value("TIDINGS_TELNYX_API_KEY");
    if (apiKey === null || publicKey === null || apiUrl === null) return null;
    const messagingProfileId = reader.value("TIDINGS_TELNYX_MESSAGING_PROFILE_ID");
    return { apiKey, publicKey, messagingProfileId, apiUrl };
  },
  create: (settings, host) => telnyxProvider({ ...host, ...settings }),
  callbacks: (settings, host) => telnyxCallbacks({ ...host, publicKey: settings.publicKey }),
  checkCredentials: checkTelnyxCredentials,
};
