import type { MessageError } from "../ports.js";

/** A message's error as every view and webhook shows it: all four fields, `null` when unknown. */
export interface MessageErrorView {
  code: string;
  message: string;
  /** The provider of the leg that failed (`sandbox`, `twilio`, `infobip`, `vonage`), or `null`. */
  provider: string | null;
  /** The provider's own code for the failure, as a string, or `null`. */
  provider_code: string | null;
}

/** The view of a stored error (errors stored before `provider` existed show it as `null`). */
export const toErrorView = (error: MessageError | null): MessageErrorView | null =>
  error === null
    ? null
    : {
        code: error.code,
        message: error.message,
        provider: error.provider ?? null,
        provider_code: error.provider_code ?? null,
      };
