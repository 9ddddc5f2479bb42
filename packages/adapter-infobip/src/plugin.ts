import type { ProviderPlugin } from "@tidings/core";
import { infobipCallbacks } from "./callback-handler.js";
import { checkInfobipCredentials } from "./credentials-check.js";
import { inboundTokenProblem } from "./inbound-handler.js";
import { INFOBIP_LIMITS, infobipProvider } from "./infobip-provider.js";

/** Infobip's settings (`TIDINGS_INFOBIP_*`). */
export interface InfobipSettings {
  /** The account's base URL, `https://{xxxxx}.api.infobip.com`. */
  baseUrl: string;
  apiKey: string;
  /** The tokens `/providers/infobip/inbound/{token}` accepts (none: that route is 404). */
  inboundTokens: string[];
  /** `TIDINGS_INFOBIP_IDEMPOTENT=1`: the account has Infobip's opt-in idempotent sending. */
  idempotent: boolean;
}

/** Infobip (Viber Business Messages and SMS) as a provider plugin. */
export const infobipPlugin: ProviderPlugin<InfobipSettings, "infobip"> = {
  name: "infobip",
  title: "Infobip",
  channels: ["viber", "sms"],
  limits: INFOBIP_LIMITS,
  settings: [
    {
      env: "TIDINGS_INFOBIP_BASE_URL",
      kind: "url",
      required: true,
      default: null,
      doc: "the account's base URL; a local fake's only with TIDINGS_DEV=1",
    },
    {
      env: "TIDINGS_INFOBIP_API_KEY",
      kind: "secret",
      required: true,
      default: null,
      doc: "sent as Authorization: App <key>",
    },
    {
      env: "TIDINGS_INFOBIP_INBOUND_TOKENS",
      kind: "list",
      required: false,
      default: "(none)",
      doc: "the secret tokens of the inbound URL, comma-separated",
    },
    {
      env: "TIDINGS_INFOBIP_IDEMPOTENT",
      kind: "flag",
      required: false,
      default: "0",
      doc: "1 when Infobip turned on idempotent sending for the account",
    },
  ],
  read(reader) {
    const baseUrl =
      reader.value("TIDINGS_INFOBIP_BASE_URL") === null
        ? null
        : reader.origin("TIDINGS_INFOBIP_BASE_URL", "");
    const apiKey = reader.value("TIDINGS_INFOBIP_API_KEY");
    const inboundTokens = (reader.value("TIDINGS_INFOBIP_INBOUND_TOKENS") ?? "")
      .split(",")
      .map((token) => token.trim())
      .filter((token) => token !== "");
    inboundTokens.forEach((token, index) => {
      // Never the token itself: it is a secret.
      const problem = inboundTokenProblem(token);
      if (problem !== null) {
        reader.problem(
          `TIDINGS_INFOBIP_INBOUND_TOKENS: token ${index + 1} ${problem} (a random one: openssl rand -hex 24).`,
        );
      }
    });
    const idempotent = reader.value("TIDINGS_INFOBIP_IDEMPOTENT") ?? "0";
    if (idempotent !== "0" && idempotent !== "1") {
      reader.problem(
        `TIDINGS_INFOBIP_IDEMPOTENT must be 1 (the account has Infobip's idempotent sending) or 0, not ${JSON.stringify(idempotent)}.`,
      );
    }
    return baseUrl === null || apiKey === null
      ? null
      : { baseUrl, apiKey, inboundTokens, idempotent: idempotent === "1" };
  },
  create: (settings, host) =>
    infobipProvider({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      idempotent: settings.idempotent,
      callbackBaseUrl: host.callbackBaseUrl,
      secretKey: host.secretKey,
      timeoutMs: host.timeoutMs,
      transport: host.transport,
      clock: host.clock,
      logger: host.logger,
      onRequest: host.onRequest,
    }),
  callbacks: (settings, host) =>
    infobipCallbacks({
      deps: host.deps,
      secretKey: host.secretKey,
      logger: host.logger,
      inbound: host.inbound,
      inboundTokens: settings.inboundTokens,
    }),
  checkCredentials: checkInfobipCredentials,
};
