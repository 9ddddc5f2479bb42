import type { ProviderTransport } from "../providers/http-provider.js";
import { jsonOrEmpty } from "../providers/upstream-answers.js";

/**
 * A `ProviderTransport` on Node's `fetch`, for adapters' tests against their fakes (the server
 * gives adapter-http's undici transport). Node's `fetch` runs on undici, so a request that got
 * no answer fails with the same codes on its `cause`, which `requestFailure` reads.
 */
export const fetchTransport: ProviderTransport = async (call) => {
  const { method, url, headers, body, signal } = call;
  const response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await jsonOrEmpty(response),
  };
};
