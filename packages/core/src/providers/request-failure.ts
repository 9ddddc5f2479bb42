/**
 * Why a request to a provider got no answer, and whether the provider can have taken it. The
 * one place that decides "provably never reached the provider": a retry of the same provider is
 * safe then, and so is a failover to the next one; anything else may have been taken, so the
 * message is not sent again (unless the provider deduplicates, or the operator opted in).
 */
export interface RequestFailure {
  /**
   * `dns`: the host's name did not resolve; `refused`: the connection was refused or the host
   * unreachable; `tls`: the TLS handshake failed (before any byte of the request); `connect_timeout`:
   * no connection within the connect timeout; `timeout`: no answer before the deadline;
   * `reset`: the connection broke after the request may have been written; `other`: anything else.
   */
  kind: "dns" | "refused" | "tls" | "connect_timeout" | "timeout" | "reset" | "other";
  /** Whether the request provably never reached the provider (so nothing was sent). */
  neverReached: boolean;
  /** The cause in words, for the message's error and the log: never a credential. */
  cause: string;
}

/** Error codes meaning the name of the provider's host did not resolve. */
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA"]);
/** Error codes meaning no connection was made. */
const REFUSED_CODES = new Set(["ECONNREFUSED", "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL"]);
/** Error codes of a TLS handshake that failed: the request was never written. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/;

/** The error and the errors it was caused by, outermost first (a bounded walk). */
function chainOf(error: unknown): Array<{ code?: unknown; message?: unknown; name?: unknown }> {
  const chain: Array<{ code?: unknown; message?: unknown; name?: unknown }> = [];
  let at: unknown = error;
  for (let depth = 0; depth < 5 && typeof at === "object" && at !== null; depth += 1) {
    chain.push(at as { code?: unknown; message?: unknown });
    at = (at as { cause?: unknown }).cause;
  }
  return chain;
}

/** A credential never rides in a connection error, but a URL's user info could: cut it. */
const withoutUserInfo = (text: string): string => text.replace(/\/\/[^/@\s]*@/g, "//");

/**
 * Classifies the error a request to a provider threw. `timedOut` says the request's deadline
 * signal had fired (an abort is then a timeout, whatever the client called it).
 */
export function requestFailure(error: unknown, timedOut: boolean): RequestFailure {
  const chain = chainOf(error);
  const codes = chain.map((e) => (typeof e.code === "string" ? e.code : ""));
  const described = chain.find((e) => typeof e.message === "string" && e.message !== "");
  const said = withoutUserInfo(
    typeof described?.message === "string" ? described.message : String(error),
  );
  const has = (test: (code: string) => boolean) => codes.some((code) => code !== "" && test(code));
  if (has((code) => DNS_CODES.has(code))) return { kind: "dns", neverReached: true, cause: said };
  if (has((code) => REFUSED_CODES.has(code))) {
    return { kind: "refused", neverReached: true, cause: said };
  }
  if (has((code) => TLS_CODE.test(code))) return { kind: "tls", neverReached: true, cause: said };
  if (has((code) => code === "UND_ERR_CONNECT_TIMEOUT")) {
    return { kind: "connect_timeout", neverReached: true, cause: said };
  }
  if (timedOut) return { kind: "timeout", neverReached: false, cause: "no answer in time" };
  if (has((code) => code === "ECONNRESET" || code === "EPIPE" || code.startsWith("UND_ERR_"))) {
    return { kind: "reset", neverReached: false, cause: said };
  }
  return { kind: "other", neverReached: false, cause: said };
}

/**
 * The message error's words for a request that got no answer: the cause, and whether anything
 * was sent (`title`: how the provider is named in sentences, e.g. "Twilio").
 */
export function requestFailureMessage(
  title: string,
  failure: RequestFailure,
  options: { deadlineMs?: number | undefined; sentAgain?: boolean | undefined } = {},
): string {
  if (failure.neverReached) {
    return `${title} could not be reached (${failure.cause}); nothing was sent.`;
  }
  const again = options.sentAgain
    ? `it may be tried again, as ${title} refuses a message id it already has.`
    : `the message was not sent again, as ${title} may have taken it.`;
  if (failure.kind === "timeout") {
    const within = options.deadlineMs === undefined ? "in time" : `within ${options.deadlineMs} ms`;
    return `${title} did not answer ${within}; ${again}`;
  }
  return `The connection to ${title} failed after the request was sent (${failure.cause}); ${again}`;
}
