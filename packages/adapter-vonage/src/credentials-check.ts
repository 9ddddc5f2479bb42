import { type CredentialsCheck, checkByRead, type ProviderTransport } from "@tidings/core";

/**
 * Reads the account's balance (`GET /account/get-balance` on the REST origin) with the API key
 * and secret, when both are given: Vonage's cheapest authenticated read. The application JWT
 * that sends has no read of its own, so without them the check is skipped.
 */
export async function checkVonageCredentials(
  settings: {
    apiKey?: string | null | undefined;
    apiSecret?: string | null | undefined;
    restUrl?: string | undefined;
  },
  options: { timeoutMs: number; transport: ProviderTransport },
): Promise<CredentialsCheck> {
  if (!settings.apiKey || !settings.apiSecret) {
    return {
      outcome: "skipped",
      detail:
        "Set TIDINGS_VONAGE_API_KEY and TIDINGS_VONAGE_API_SECRET to check the account; the application key is checked by the first send.",
    };
  }
  const restUrl = (settings.restUrl ?? "https://rest.nexmo.com").replace(/\/+$/, "");
  const query = new URLSearchParams({ api_key: settings.apiKey, api_secret: settings.apiSecret });
  const balance = {
    method: "GET" as const,
    url: `${restUrl}/account/get-balance?${query}`,
    headers: { accept: "application/json" },
  };
  return checkByRead(options.transport, "Vonage", balance, options, ({ status, body }) => {
    if (status === 200) return { outcome: "ok", detail: `Vonage balance ${String(body.value)}.` };
    return status === 401 || status === 403
      ? { outcome: "refused", detail: `Vonage refused the API key and secret (HTTP ${status}).` }
      : null;
  });
}
