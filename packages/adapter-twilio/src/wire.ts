// Twilio's bodies, as its API v2010 OpenAPI document (twilio/twilio-oai) and twilio-node's
// RestException name them; only the fields Tidings reads.

/** The 201 answer to `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`. */
export interface TwilioMessage {
  sid: string;
  status: string;
  /** The sender; `null` while a Messaging Service has not picked one of its numbers. */
  from: string | null;
  error_code: number | null;
}

/** An error answer: `{ code, message, more_info, status }` (twilio-node `RestException`). */
export interface TwilioRestError {
  code?: number | undefined;
  message?: string | undefined;
  more_info?: string | undefined;
  status?: number | undefined;
}

/** The form fields of a status callback that Tidings reads (every field is signed). */
export interface TwilioStatusCallback {
  MessageSid?: string | undefined;
  SmsSid?: string | undefined;
  MessageStatus?: string | undefined;
  SmsStatus?: string | undefined;
  ErrorCode?: string | undefined;
  AccountSid?: string | undefined;
  /** The sender the message went out from (a Messaging Service's pool number). */
  From?: string | undefined;
}
