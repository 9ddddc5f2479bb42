import type { HttpRequest, HttpResponse } from "@tidings/adapter-http";
import type { Issue } from "@tidings/core";
import { type FormBody, parseFormBody } from "./form-body.js";

/** A request as the console's handlers see it: path, query, cookies and the parsed form. */
export interface ConsoleRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Query parameters that are no text (broken UTF-8, NUL), which no search can look for. */
  queryIssues: Issue[];
  cookies: Map<string, string>;
  /** The urlencoded form of a POST; empty for other requests. */
  form: URLSearchParams;
  /** Form fields that are no text (broken UTF-8, a lone surrogate, NUL), by field name. */
  formIssues: Issue[];
  headers: HttpRequest["headers"];
}

/** Splits `path?query#fragment`; `null` for a target that is not origin-form. */
export function parseRequest(request: HttpRequest): ConsoleRequest | null {
  const withoutFragment = request.url.split("#", 1)[0] ?? "";
  const at = withoutFragment.indexOf("?");
  const path = at === -1 ? withoutFragment : withoutFragment.slice(0, at);
  if (!path.startsWith("/")) return null;
  const query = parseFormBody(at === -1 ? "" : withoutFragment.slice(at + 1));
  const form = parseForm(request);
  return {
    method: request.method.toUpperCase(),
    path: path.length > 1 ? path.replace(/\/+$/, "") : path,
    query: query.fields,
    queryIssues: query.issues,
    cookies: parseCookies(header(request.headers, "cookie") ?? ""),
    form: form.fields,
    formIssues: form.issues,
    headers: request.headers,
  };
}

/** The first value of a header, whatever its case. */
export function header(headers: HttpRequest["headers"], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function parseCookies(text: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name !== "" && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

function parseForm(request: HttpRequest): FormBody {
  const type = header(request.headers, "content-type") ?? "";
  if (
    request.method.toUpperCase() !== "POST" ||
    !type.toLowerCase().startsWith("application/x-www-form-urlencoded")
  ) {
    return parseFormBody(undefined);
  }
  return parseFormBody(request.body);
}

/**
 * The strict policy of every answer: only this origin's stylesheet and script, no inline
 * script or style, no framing, forms only to this origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
};

/** An HTML page with every security header. */
export function htmlResponse(
  status: number,
  body: string,
  extra: Record<string, string> = {},
): HttpResponse {
  return {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", ...extra },
    body,
  };
}

/** A 303 to `location` (after a form post, so a reload does not post again). */
export function redirect(location: string, extra: Record<string, string> = {}): HttpResponse {
  return { status: 303, headers: { ...SECURITY_HEADERS, location, ...extra }, body: "" };
}

/** A static asset, cacheable for an hour (it changes only with the package). */
export function assetResponse(contentType: string, body: string): HttpResponse {
  return {
    status: 200,
    headers: {
      ...SECURITY_HEADERS,
      "content-type": contentType,
      "cache-control": "public, max-age=3600",
    },
    body,
  };
}
