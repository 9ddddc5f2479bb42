import type { CredentialsCheck } from "@tidings/core";
import { request } from "undici";

/**
 * Reads one page of one message (`GET /2010-04-01/Accounts/{sid}/Messages.json?PageSize=1`)
 * with the credentials sends use: a read an auth token and a Standard API key (`SK…`) may both
 * make, unlike the account itself, which an API key cannot read.
 */
export async function checkTwilioCredentials(options: {
  accountSid: string;
  authToken: string;
  apiKeySid?: string | undefined;
  apiKeySecret?: string | undefined;
  apiUrl?: string | undefined;
  timeoutMs?: number | undefined;
}): Promise<CredentialsCheck> {
  const apiUrl = (options.apiUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const user = options.apiKeySid ?? options.accountSid;
  const password = options.apiKeySid ? (options.apiKeySecret ?? "") : options.authToken;
  try {
    const response = await request(
      `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json?PageSize=1`,
      {
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
          accept: "application/json",
        },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      },
    );
    const body = (await response.body.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.statusCode === 200) {
      const what = options.apiKeySid ? `API key ${options.apiKeySid}` : "auth token";
      return {
        outcome: "ok",
        detail: `Twilio accepted the ${what} of account ${options.accountSid}.`,
      };
    }
    if (response.statusCode === 401 || response.statusCode === 403) {
      return {
        outcome: "refused",
        detail: `Twilio refused the credentials (HTTP ${response.statusCode}, code ${String(body.code ?? "none")}).`,
      };
    }
    return { outcome: "unreachable", detail: `Twilio answered HTTP ${response.statusCode}.` };
  } catch (error) {
    return {
      outcome: "unreachable",
      detail: `Twilio could not be reached: ${(error as Error).message}.`,
    };
  }
}
