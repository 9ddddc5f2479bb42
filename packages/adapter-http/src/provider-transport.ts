import { jsonOrEmpty, type ProviderTransport } from "@tidings/core";
import { request } from "undici";

/**
 * The provider skeleton's requests, made with undici: the one `ProviderTransport` every adapter
 * is given by its host. undici's errors carry the codes core's `requestFailure` reads to tell a
 * request that never left from one that may have reached the provider.
 */
export const undiciProviderTransport: ProviderTransport = async (call) => {
  const { method, url, headers, body, signal } = call;
  const response = await request(url, { method, headers, body: body ?? null, signal });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: await jsonOrEmpty(response.body),
  };
};
