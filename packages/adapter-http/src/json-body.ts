import { err, ok, type Result } from "neverthrow";
import { headerValue, type RequestHeaders } from "./headers.js";
import { edgeProblems, type ProblemSpec } from "./problem.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The raw body as bytes' length, without copying a string. */
export const bodyLength = (body: Uint8Array | string | undefined): number =>
  body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;

/** The body as text; `null` when it is not valid UTF-8. */
export function bodyText(body: Uint8Array | string | undefined): string | null {
  if (body === undefined) return "";
  if (typeof body === "string") return body;
  try {
    return utf8.decode(body);
  } catch {
    return null;
  }
}

/** `application/json` or any `+json` type, with at most a UTF-8 charset parameter. */
function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type = "", ...parameters] = contentType.split(";").map((part) => part.trim());
  const media = type.toLowerCase();
  if (media !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(media)) {
    return false;
  }
  return parameters.every((parameter) => {
    const [name = "", value = ""] = parameter.split("=").map((part) => part.trim());
    if (name.toLowerCase() !== "charset") return true;
    return /^"?utf-?8"?$/i.test(value);
  });
}

/** A parsed body, or the problem that stopped it. */
export type BodyOutcome = Result<unknown, ProblemSpec>;

/**
 * Reads a JSON request body. No body (or an empty one) is `undefined`, which the use case's
 * schema then refuses with a 400 naming `body`. A sent body needs a JSON content type (415)
 * and must parse (400 `malformed_json`). V8's JSON.parse is iterative, so deep nesting within
 * the 1 MiB cap cannot overflow the stack.
 */
export function readJsonBody(
  headers: RequestHeaders,
  body: Uint8Array | string | undefined,
): BodyOutcome {
  if (bodyLength(body) === 0) return ok(undefined);
  if (!isJsonContentType(headerValue(headers, "content-type"))) {
    return err(edgeProblems.unsupportedMediaType());
  }
  const text = bodyText(body);
  if (text === null) return err(edgeProblems.malformedJson("it is not valid UTF-8."));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "it cannot be parsed.";
    return err(edgeProblems.malformedJson(reason.slice(0, 200)));
  }
  // Refused here, once for every field of every endpoint: NUL, which PostgreSQL cannot store,
  // and lone UTF-16 surrogates, which are no text at all (stored as invalid UTF-8, read back
  // as U+FFFD). Past UTF-8 decoding both can only arrive as JSON escapes, so most bodies skip
  // the walk.
  if (/\\u(0000|d[89a-f])/i.test(text) || LONE_SURROGATE.test(text)) {
    const found = unstorableText(value);
    if (found !== null) return err(edgeProblems.unstorableText(found.path, found.what));
  }
  return ok(value);
}

/** A UTF-16 surrogate not paired with its other half (with `u`, a pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** What makes a string unstorable: `nul` (U+0000) or `surrogate` (a lone UTF-16 surrogate). */
export type UnstorableText = "nul" | "surrogate";

const unstorable = (text: string): UnstorableText | null =>
  text.includes("\0") ? "nul" : LONE_SURROGATE.test(text) ? "surrogate" : null;

/**
 * The path of the first key or string holding NUL or a lone surrogate, and which it holds,
 * walked without recursion; `null` when every string can be stored.
 */
export function unstorableText(root: unknown): { path: string; what: UnstorableText } | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      const what = unstorable(value);
      if (what !== null) return { path: path || "body", what };
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) stack.push({ value: item, path: `${path}[${i}]` });
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const at = path === "" ? key : `${path}.${key}`;
        const what = unstorable(key);
        if (what !== null) return { path: at, what };
        stack.push({ value: item, path: at });
      }
    }
  }
  return null;
}

/** Whether a parsed body is a JSON object (not an array, not a scalar, not null). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
