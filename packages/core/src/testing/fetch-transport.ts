import type { ProviderTransport } from "../providers/http-provider.js";
import { jsonOrEmpty } from "../providers/upstream-answers.js";

/**
 * A `ProviderTransport` on Node's `fetch`, for adapters' tests against their fakes (the server
 * gives adapter-http's undici transport). Node's `fetch` runs on undici, so a request that got
 * no answer fails with the same codes on its `cause`, which `requestFailure` reads.
 */
export const fetchTransport: ProviderTransport = async (call) => {
  const { method, url, headers, body, signal } = call;
  const init = { method, headers, body: body ?? null, signal, redirect: "manual" as const };
  const response = await fetch(url, init);
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    answered[name] = value;
  });
  return { status: response.status, headers: answered, body: await jsonOrEmpty(response) };
};
