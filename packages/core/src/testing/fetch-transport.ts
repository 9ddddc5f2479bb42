import type { ProviderTransport } from "../providers/http-provider.js";
import { jsonOrEmpty } from "../providers/upstream-answers.js";

/**
 * A `ProviderTransport` on Node's `fetch`, for adapters' tests against their fakes (the server
 * gives adapter-http's undici transport). Node's `fetch` runs on undici; a request that got no
 * answer throws undici's own error, as the undici transport does, for `requestFailure` to read.
 */
export const fetchTransport: ProviderTransport = async (call) => {
  const { method, url, headers, body, signal } = call;
  const init = { method, headers, body: body ?? null, signal, redirect: "manual" as const };
  // `fetch` wraps undici's error in "fetch failed": the cause is what undici's request throws.
  const response = await fetch(url, init).catch((error: unknown) => {
    throw error instanceof TypeError && error.cause !== undefined ? error.cause : error;
  });
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    answered[name] = value;
  });
  return { status: response.status, headers: answered, body: await jsonOrEmpty(response) };
};

/**
 * An origin nothing listens on, so a connection to it is refused: a contract's `unreachable`
 * provider points there. Not port 1, which `fetch` will not try at all (a "bad port").
 */
export const REFUSING_ORIGIN = "http://127.0.0.1:2";
