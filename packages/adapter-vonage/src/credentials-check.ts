import type { CredentialsCheck } from "@tidings/core";
import { request } from "undici";

/**
 * Reads the account's balance (`GET /account/get-balance` on the REST origin) with the API key
 * and secret, when both are given: Vonage's cheapest authenticated read. The application JWT
 * that sends has no read of its own, so without them the check is skipped.
 */
export async function checkVonageCredentials(options: {
  apiKey?: string | undefined;
  apiSecret?: string | undefined;
  restUrl?: string | undefined;
  timeoutMs?: number | undefined;
}): Promise<CredentialsCheck> {
  if (!options.apiKey || !options.apiSecret) {
    return {
      outcome: "skipped",
      detail:
        "Set TIDINGS_VONAGE_API_KEY and TIDINGS_VONAGE_API_SECRET to check the account; the application key is checked by the first send.",
    };
  }
  const restUrl = (options.restUrl ?? "https://rest.nexmo.com").replace(/\/+$/, "");
  const query = new URLSearchParams({ api_key: options.apiKey, api_secret: options.apiSecret });
  try {
    const response = await request(`${restUrl}/account/get-balance?${query}`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = (await response.body.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.statusCode === 200) {
      return { outcome: "ok", detail: `Vonage balance ${String(body.value)}.` };
    }
    if (response.statusCode === 401 || response.statusCode === 403) {
      return {
        outcome: "refused",
        detail: `Vonage refused the API key and secret (HTTP ${response.statusCode}).`,
      };
    }
    return { outcome: "unreachable", detail: `Vonage answered HTTP ${response.statusCode}.` };
  } catch (error) {
    return {
      outcome: "unreachable",
      detail: `Vonage could not be reached: ${(error as Error).message}.`,
    };
  }
}
