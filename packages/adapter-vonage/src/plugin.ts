import { createPrivateKey } from "node:crypto";
import { apiOriginSetting, type ProviderPlugin } from "@tidings/core";
import { vonageCallbacks } from "./callback-handler.js";
import { checkVonageCredentials } from "./credentials-check.js";
import { VONAGE_LIMITS, vonageProvider } from "./vonage-provider.js";

const API_URL = apiOriginSetting(
  "TIDINGS_VONAGE_API_URL",
  "https://api.nexmo.com",
  "the Messages API origin",
);

const REST_URL = apiOriginSetting(
  "TIDINGS_VONAGE_REST_URL",
  "https://rest.nexmo.com",
  "the REST origin of the balance read",
);

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

/** The Vonage Messages API (Viber and SMS) as a provider plugin. */
export const vonagePlugin: ProviderPlugin<VonageSettings, "vonage"> = {
  name: "vonage",
  title: "Vonage",
  channels: ["viber", "sms"],
  limits: VONAGE_LIMITS,
  settings: [
    {
      env: "TIDINGS_VONAGE_APPLICATION_ID",
      kind: "text",
      required: true,
      default: null,
      doc: "the application's id",
    },
    {
      env: "TIDINGS_VONAGE_PRIVATE_KEY",
      kind: "secret",
      required: true,
      default: null,
      doc: "the application's private key as PEM text",
    },
    {
      env: "TIDINGS_VONAGE_SIGNATURE_SECRET",
      kind: "secret",
      required: true,
      default: null,
      doc: "the HS256 secret of signed webhooks",
    },
    {
      env: "TIDINGS_VONAGE_API_KEY",
      kind: "text",
      required: false,
      default: "(none)",
      doc: "when set, a webhook's api_key claim must equal it",
    },
    {
      env: "TIDINGS_VONAGE_API_SECRET",
      kind: "secret",
      required: false,
      default: "(none)",
      doc: "with the API key, lets providers check read the balance",
    },
    API_URL,
    REST_URL,
  ],
  read(reader) {
    // A PEM pasted into one line of an env file keeps its newlines as \n.
    const privateKey = reader.value("TIDINGS_VONAGE_PRIVATE_KEY")?.replace(/\\n/g, "\n") ?? null;
    if (privateKey !== null) {
      try {
        createPrivateKey(privateKey);
      } catch {
        reader.problem(
          "TIDINGS_VONAGE_PRIVATE_KEY must be the application's private key as PEM text (-----BEGIN PRIVATE KEY----- …), as Vonage's dashboard downloads it.",
        );
      }
    }
    const apiUrl = reader.origin(API_URL.env, API_URL.default);
    const restUrl = reader.origin(REST_URL.env, REST_URL.default);
    const applicationId = reader.value("TIDINGS_VONAGE_APPLICATION_ID");
    const signatureSecret = reader.value("TIDINGS_VONAGE_SIGNATURE_SECRET");
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
      apiKey: reader.value("TIDINGS_VONAGE_API_KEY"),
      apiSecret: reader.value("TIDINGS_VONAGE_API_SECRET"),
      apiUrl,
      restUrl,
    };
  },
  create: (settings, host) =>
    vonageProvider({
      applicationId: settings.applicationId,
      privateKey: settings.privateKey,
      apiUrl: settings.apiUrl,
      callbackBaseUrl: host.callbackBaseUrl,
      timeoutMs: host.timeoutMs,
      transport: host.transport,
      clock: host.clock,
      logger: host.logger,
      onRequest: host.onRequest,
    }),
  callbacks: (settings, host) =>
    vonageCallbacks({
      deps: host.deps,
      signatureSecret: settings.signatureSecret,
      apiKey: settings.apiKey ?? undefined,
      logger: host.logger,
      inbound: host.inbound,
    }),
  checkCredentials: checkVonageCredentials,
};
