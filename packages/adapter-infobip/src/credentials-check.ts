import type { CredentialsCheck } from "@tidings/core";
import { request } from "undici";

/** Reads the account's balance (`GET /account/1/balance`): Infobip's cheapest authenticated read. */
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
    if (response.statusCode === 401 || response.statusCode === 403) {
      return {
        outcome: "refused",
        detail: `Infobip refused the API key (HTTP ${response.statusCode}).`,
      };
    }
    return { outcome: "unreachable", detail: `Infobip answered HTTP ${response.statusCode}.` };
  } catch (error) {
    return {
      outcome: "unreachable",
      detail: `Infobip could not be reached: ${(error as Error).message}.`,
    };
  }
}
