import type { CredentialsCheck } from "@tidings/core";
import { request } from "undici";

/**
 * Reads the account's balance (`GET /v2/balance`, Telnyx's read-only first request) with the
 * API key that sends: 401 is a refused key; 403 (a key kept from billing) cannot say.
 */
export async function checkTelnyxCredentials(options: {
  apiKey: string;
  apiUrl?: string | undefined;
  timeoutMs?: number | undefined;
}): Promise<CredentialsCheck> {
  const apiUrl = (options.apiUrl ?? "https://api.telnyx.com").replace(/\/+$/, "");
  try {
    const response = await request(`${apiUrl}/v2/balance`, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = (await response.body.json().catch(() => ({}))) as { data?: Json };
    if (response.statusCode === 200) {
      const data = body.data ?? {};
      return {
        outcome: "ok",
        detail: `Telnyx balance ${String(data.balance)} ${String(data.currency)}.`,
      };
    }
    if (response.statusCode === 401) {
      return { outcome: "refused", detail: "Telnyx refused the API key (HTTP 401)." };
    }
    if (response.statusCode === 403) {
      // A key may be kept from the balance and still send.
      return {
        outcome: "skipped",
        detail: "Telnyx would not show this key the balance (HTTP 403); the first send checks it.",
      };
    }
    return { outcome: "unreachable", detail: `Telnyx answered HTTP ${response.statusCode}.` };
  } catch (error) {
    return {
      outcome: "unreachable",
      detail: `Telnyx could not be reached: ${(error as Error).message}.`,
    };
  }
}

type Json = Record<string, unknown>;
