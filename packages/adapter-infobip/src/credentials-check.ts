import type { CredentialsCheck } from "@tidings/core";
import { request } from "undici";

/**
 * Reads the account's balance (`GET /account/1/balance`): Infobip's cheapest authenticated read.
 * It needs the `account-management:manage` scope, which a key with send scopes only lacks:
 * Infobip then answers 403 after taking the key, so that is "cannot check", not a refusal.
 */
export async function checkInfobipCredentials(options: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number | undefined;
}): Promise<CredentialsCheck> {
  try {
    const response = await request(`${options.baseUrl.replace(/\/+$/, "")}/account/1/balance`, {
      headers: { authorization: `App ${options.apiKey}`, accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = (await response.body.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.statusCode === 200) {
      return {
        outcome: "ok",
        detail: `Infobip balance ${[body.balance, body.currency].filter((v) => v !== undefined).join(" ")}.`,
      };
    }
    if (response.statusCode === 403) {
      return {
        outcome: "skipped",
        detail:
          "Infobip took the API key but it may not read the balance (a key with send scopes only): cannot check, sending allowed.",
      };
    }
    if (response.statusCode === 401) {
      return { outcome: "refused", detail: "Infobip refused the API key (HTTP 401)." };
    }
    return { outcome: "unreachable", detail: `Infobip answered HTTP ${response.statusCode}.` };
  } catch (error) {
    return {
      outcome: "unreachable",
      detail: `Infobip could not be reached: ${(error as Error).message}.`,
    };
  }
}
