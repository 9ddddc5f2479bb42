import { type CredentialsCheck, checkByRead, type ProviderTransport } from "@tidings/core";

/**
 * Reads the account's balance (`GET /v2/balance`, Telnyx's read-only first request) with the
 * API key that sends: 401 is a refused key; 403 (a key kept from billing) cannot say.
 */
export function checkTelnyxCredentials(
  settings: { apiKey: string; apiUrl: string },
  options: { timeoutMs: number; transport: ProviderTransport },
): Promise<CredentialsCheck> {
  const headers = { authorization: `Bearer ${settings.apiKey}`, accept: "application/json" };
  const balance = { method: "GET" as const, url: `${settings.apiUrl}/v2/balance`, headers };
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
