import type { Ids } from "@tidings/core";
import { headerValue } from "./headers.js";

/** Visible ASCII only, at most 128 characters: safe to echo in a header and in a log line. */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's id: the client's `X-Request-Id` when it is sane (so calls can be traced across
 * systems), otherwise a fresh UUID v7.
 */
export function requestIdOf(headers: Record<string, string | string[] | undefined>, ids: Ids) {
  const sent = headerValue(headers, "x-request-id")?.trim();
  return sent !== undefined && SANE_REQUEST_ID.test(sent) ? sent : ids.uuidv7();
}
