import {
  bodyText,
  type CallbackLogger,
  type CallbackRequest,
  type CallbackResponse,
  emptyAnswer,
  headerOf,
} from "@tidings/core";
import {
  formParams,
  signatureSettings,
  type TwilioParams,
  verifyTwilioSignature,
} from "./signature.js";

/** The secrets a Twilio request may be signed with. */
export interface TwilioSigningSecrets {
  /** The account's auth token: the key of `X-Twilio-Signature` without signing settings. */
  authToken: string;
  /** Webhook signing keys by key id (`TIDINGS_TWILIO_WEBHOOK_KEYS`). */
  webhookKeys?: Readonly<Record<string, string>> | undefined;
}

/** A request's form once its signature held, or the 403 that refuses it. */
export type SignedForm =
  | { ok: true; params: TwilioParams }
  | { ok: false; answer: CallbackResponse };

/**
 * The form of a request Twilio signed, for status callbacks and incoming messages alike:
 * `X-Twilio-Signature` over `url` (the public URL as Twilio called it) and every parameter,
 * with the auth token, or with the named key's secret when the request carries
 * `X-Twilio-Webhooks-Signature-Settings` (HMAC-SHA256 webhook signing). A missing signature,
 * an unknown key or algorithm and a mismatch are each 403 and logged at warn, with `what`
 * ("callback", "inbound") in the line.
 */
export function signedForm(
  request: CallbackRequest,
  secrets: TwilioSigningSecrets,
  url: string,
  context: { route: string; what: string; logger: CallbackLogger },
): SignedForm {
  const { route, what, logger } = context;
  const refuse = (why: string, fields: Record<string, unknown> = {}): SignedForm => {
    logger.warn(`twilio ${what} refused: ${why}`, { route, ...fields });
    return { ok: false, answer: emptyAnswer(403, route) };
  };
  const signature = headerOf(request, "x-twilio-signature");
  if (signature === null) return refuse("no signature");
  const settingsHeader = headerOf(request, "x-twilio-webhooks-signature-settings");
  const settings = settingsHeader === null ? null : signatureSettings(settingsHeader);
  const secret =
    settingsHeader === null
      ? secrets.authToken
      : settings?.key == null
        ? undefined
        : secrets.webhookKeys?.[settings.key];
  if (secret === undefined) {
    return refuse(
      "its webhook signing key or algorithm is not one Tidings knows (TIDINGS_TWILIO_WEBHOOK_KEYS)",
      { settings: settingsHeader },
    );
  }
  const params = formParams(bodyText(request.body));
  if (!verifyTwilioSignature(secret, signature, url, params, settings?.hash ?? "sha1").ok) {
    return refuse("signature does not match");
  }
  return { ok: true, params };
}
