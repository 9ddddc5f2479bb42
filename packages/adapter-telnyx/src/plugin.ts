import type { KeyObject } from "node:crypto";
import type { ProviderPlugin } from "@tidings/core";
import { telnyxCallbacks } from "./callback-handler.js";
import { checkTelnyxCredentials } from "./credentials-check.js";
import { TELNYX, telnyxProvider } from "./telnyx-provider.js";
import { telnyxPublicKey } from "./webhook-signature.js";

/** Telnyx's settings (`TIDINGS_TELNYX_*`). */
export interface TelnyxSettings {
  apiKey: string;
  /** The account's webhook public key. */
  publicKey: KeyObject;
  messagingProfileId: string | undefined;
  apiUrl: string;
}

/** Telnyx Messaging (SMS) as a provider plugin. */
export const telnyxPlugin: ProviderPlugin<TelnyxSettings, "telnyx"> = {
  ...TELNYX,
  settings: [
    {
      env: "TIDINGS_TELNYX_API_KEY",
      kind: "secret",
      required: true,
      default: null,
      doc: "the API key (v2), sent as Authorization: Bearer",
    },
    {
      env: "TIDINGS_TELNYX_PUBLIC_KEY",
      kind: "text",
      required: true,
      default: null,
      doc: "the account's webhook public key, base64 of 32 bytes",
    },
    {
      env: "TIDINGS_TELNYX_MESSAGING_PROFILE_ID",
      kind: "text",
      required: false,
      default: "(none)",
      doc: "the messaging profile to send with",
    },
    {
      env: "TIDINGS_TELNYX_API_URL",
      kind: "url",
      required: false,
      default: "https://api.telnyx.com",
      doc: "the API origin; a local fake's only with TIDINGS_DEV=1",
    },
  ],
  read(reader) {
    const keyText = reader.value("TIDINGS_TELNYX_PUBLIC_KEY");
    const publicKey = keyText === null ? null : telnyxPublicKey(keyText);
    if (keyText !== null && publicKey === null) {
      reader.problem(
        "TIDINGS_TELNYX_PUBLIC_KEY must be the account's public key as Mission Control shows it: base64 of 32 bytes.",
      );
    }
    const apiUrl = reader.origin("TIDINGS_TELNYX_API_URL", "https://api.telnyx.com");
    const apiKey = reader.value("TIDINGS_TELNYX_API_KEY");
    if (apiKey === null || publicKey === null || apiUrl === null) return null;
    const messagingProfileId = reader.value("TIDINGS_TELNYX_MESSAGING_PROFILE_ID") ?? undefined;
    return { apiKey, publicKey, messagingProfileId, apiUrl };
  },
  create: (settings, host) => telnyxProvider({ ...host, ...settings }),
  callbacks: (settings, host) => telnyxCallbacks({ ...host, publicKey: settings.publicKey }),
  checkCredentials: checkTelnyxCredentials,
};
