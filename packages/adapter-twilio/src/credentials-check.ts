import { type CredentialsCheck, checkByRead, type ProviderTransport } from "@tidings/core";

/**
 * Reads one page of one message (`GET /2010-04-01/Accounts/{sid}/Messages.json?PageSize=1`)
 * with the credentials sends use: a read an auth token and a Standard API key (`SK…`) may both
 * make, unlike the account itself, which an API key cannot read.
 */
export function checkTwilioCredentials(
  settings: {
    accountSid: string;
    authToken: string;
    apiKeySid?: string | null | undefined;
    apiKeySecret?: string | null | undefined;
    apiUrl?: string | undefined;
  },
  options: { timeoutMs: number; transport: ProviderTransport },
): Promise<CredentialsCheck> {
  const { accountSid, apiKeySid } = settings;
  const apiUrl = (settings.apiUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const user = apiKeySid ?? accountSid;
  const password = apiKeySid ? (settings.apiKeySecret ?? "") : settings.authToken;
  const page = {
    method: "GET" as const,
    url: `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json?PageSize=1`,
    headers: {
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
      accept: "application/json",
    },
  };
  return checkByRead(options.transport, "Twilio", page, options, ({ status, body }) => {
    if (status === 200) {
      const what = apiKeySid ? `API key ${apiKeySid}` : "auth token";
      return { outcome: "ok", detail: `Twilio accepted the ${what} of account ${accountSid}.` };
    }
    if (status !== 401 && status !== 403) return null;
    const code = String(body.code ?? "none");
    return {
      outcome: "refused",
      detail: `Twilio refused the credentials (HTTP ${status}, code ${code}).`,
    };
  });
}
