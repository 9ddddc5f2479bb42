/** Response headers the document refers to from several operations. */
export const standardHeaders = {
  requestId: {
    description: "The request's id: the client's when sane, otherwise a UUID v7.",
    schema: { type: "string" },
  },
  replayed: {
    description: "`true` when the answer is a replay of an earlier request with this key.",
    schema: { type: "string", enum: ["true"] },
  },
  rateLimit: {
    "RateLimit-Limit": {
      description:
        "Requests allowed per window for this API key: sends, or test webhooks, counted apart.",
      schema: { type: "integer" },
    },
    "RateLimit-Remaining": {
      description: "Requests left in the current window.",
      schema: { type: "integer", minimum: 0 },
    },
    "RateLimit-Reset": {
      description:
        "Whole seconds, rounded up, until the oldest request counted in the sliding window " +
        "leaves it and RateLimit-Remaining goes up; 0 only when none is counted.",
      schema: { type: "integer", minimum: 0 },
    },
  },
};

const problemResponse = (
  description: string,
  headers: Record<string, unknown> = {},
  schema: Record<string, unknown> = { $ref: "#/components/schemas/Problem" },
) => ({
  description,
  headers: { "X-Request-Id": standardHeaders.requestId, ...headers },
  content: { "application/problem+json": { schema } },
});

/**
 * An operation's 409: the problem document with `code` narrowed to the conflicts that
 * operation can answer, so a client knows exactly what to switch on.
 */
export const conflictResponse = (codes: readonly string[], headers: Record<string, unknown>) =>
  problemResponse(
    `The request clashes with stored state: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
    headers,
    {
      allOf: [
        { $ref: "#/components/schemas/Problem" },
        { type: "object", properties: { code: { type: "string", enum: [...codes] } } },
      ],
    },
  );

/**
 * Every error status the API answers, as reusable responses named `E<status>`. The `code`
 * values each can carry are listed so clients know what to switch on.
 */
export const errorResponses: Record<string, unknown> = {
  E400: problemResponse(
    "Invalid input (`validation_failed`, `invalid_cursor`, `invalid_params`, `text_too_long`, " +
      "`campaign_inactive`), an ambiguous email recipient (`ambiguous_recipient`) or a body " +
      "that is not JSON (`malformed_json`). `errors` lists every problem with its path.",
  ),
  E401: problemResponse(
    "The API key is missing, malformed, unknown, revoked, expired or its secret is wrong " +
      "(`unauthorized`); the answer never says which.",
    { "WWW-Authenticate": { schema: { type: "string" } } },
  ),
  E403: problemResponse(
    "The API key lacks the scope the endpoint needs (`missing_scope`), or promotional " +
      "consent was not found for the profile (`consent_missing`).",
  ),
  E404: problemResponse(
    "Nothing with this id exists for the organization (`*_not_found`), or no endpoint " +
      "answers the path (`route_not_found`).",
  ),
  E405: problemResponse(
    "The operation's path with a method it does not take (`method_not_allowed`); `Allow` " +
      "lists the methods it does.",
    { Allow: { description: "The methods the path answers.", schema: { type: "string" } } },
  ),
  E413: problemResponse("The request body exceeds 1 MiB (`payload_too_large`)."),
  E415: problemResponse(
    "A body was sent without `Content-Type: application/json` (`unsupported_media_type`).",
  ),
  E422: problemResponse(
    "The Idempotency-Key was used with another body (`idempotency_key_reused`), or, on a send, " +
      "no moment in the next 8 days is inside the campaign's sending window in every time " +
      "zone the recipient may be in, or none is known (`no_sending_time`).",
  ),
  E429: problemResponse(
    "Too many sends, or test webhooks, in the window for this API key (`rate_limited`).",
    {
      "Retry-After": {
        description: "Whole seconds to wait, at least 1.",
        schema: { type: "integer", minimum: 1 },
      },
      ...standardHeaders.rateLimit,
    },
  ),
  E500: problemResponse("An unexpected failure (`internal_error`); quote the request id."),
  E503: problemResponse(
    "Storage is unavailable: out of reach, full or read-only (`storage_unavailable`; its " +
      "`detail` says whether anything was changed, and when it may have been, that a retry is " +
      "safe only with the same `Idempotency-Key`), does not answer a readiness probe " +
      "(`not_ready`), or another process has held the database's write lock for too long " +
      "(`storage_busy`; nothing was changed). Always with `Retry-After`.",
    {
      "Retry-After": {
        description: "Whole seconds to wait before retrying.",
        schema: { type: "integer", minimum: 1 },
      },
    },
  ),
};
