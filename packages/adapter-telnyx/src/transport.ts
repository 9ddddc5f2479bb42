import { jsonOrEmpty, type ProviderTransport } from "@tidings/core";
import { request } from "undici";

/** The skeleton's HTTP requests, made with undici (whose errors carry the codes core reads). */
export const undiciTransport: ProviderTransport = async ({
  method,
  url,
  headers,
  body,
  signal,
}) => {
  const response = await request(url, { method, headers, body: body ?? null, signal });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: await jsonOrEmpty(response.body),
  };
};
