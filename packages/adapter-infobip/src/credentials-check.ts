import { type CredentialsCheck, checkByRead, type ProviderTransport } from "@tidings/core";

/**
 * Reads the account's balance (`GET /account/1/balance`): Infobip's cheapest authenticated read.
 * It needs the `account-management:manage` scope, which a key with send scopes only lacks:
 * Infobip then answers 403 after taking the key, so that is "cannot check", not a refusal.
 */
export function checkInfobipCredentials(
  settings: { baseUrl: string; apiKey: string },
  options: { timeoutMs: number; transport: ProviderTransport },
): Promise<CredentialsCheck> {
  const balance = {
    method: "GET" as const,
    url: `${settings.baseUrl.replace(/\/+$/, "")}/account/1/balance`,
    headers: { authorization: `App ${settings.apiKey}`, accept: "application/json" },
  };
  return checkByRead(options.transport, "Infobip", balance, options, ({ status, body }) => {
    if (status === 200) {
      const amount = [body.balance, body.currency].filter((v) => v !== undefined).join(" ");
      return { outcome: "ok", detail: `Infobip balance ${amount}.` };
    }
    if (status === 403) {
      return {
        outcome: "skipped",
        detail:
          "Infobip took the API key but it may not read the balance (a key with send scopes only): cannot check, sending allowed.",
      };
    }
    return status === 401
      ? { outcome: "refused", detail: "Infobip refused the API key (HTTP 401)." }
      : null;
  });
}
