import { createHmac, timingSafeEqual } from "node:crypto";
import { parse, stringify } from "node:querystring";
import { parseUrl, type Verified, verifiedOk } from "@tidings/core";

/** A callback's form parameters; a name sent more than once holds every value. */
export type TwilioParams = Record<string, string | string[]>;

/** The form body's parameters, every one received (Twilio's set changes without notice). */
export function formParams(body: string): TwilioParams {
  const params: TwilioParams = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const held = params[name];
    params[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  return params;
}

/** `name + value` for each value; a repeated name's values de-duplicated and sorted. */
const pairs = (name: string, value: string | string[]): string =>
  Array.isArray(value)
    ? [...new Set(value)]
        .sort()
        .map((one) => name + one)
        .join("")
    : name + value;

/** The hash of a signature: HMAC-SHA1 (the auth token's) or HMAC-SHA256 (a webhook key's). */
export type TwilioSignatureHash = "sha1" | "sha256";

/**
 * `X-Twilio-Signature` of a request to `url` with `params`: base64 HMAC-SHA1 (or, under webhook
 * signing settings, HMAC-SHA256), keyed with the auth token (or the settings' key secret), of
 * the URL followed by each parameter's name and value, names sorted.
 */
export function twilioSignature(
  authToken: string,
  url: string,
  params: TwilioParams,
  hash: TwilioSignatureHash = "sha1",
): string {
  const data = Object.keys(params)
    .sort()
    .reduce((signed, name) => signed + pairs(name, params[name]!), url);
  return createHmac(hash, authToken).update(data, "utf8").digest("base64");
}

/**
 * The key and hash `X-Twilio-Webhooks-Signature-Settings` names (`key=…,algorithm=HMAC_SHA256`),
 * as twilio-node reads it: `null` for an algorithm Tidings does not know.
 */
export function signatureSettings(
  header: string,
): { key: string | null; hash: TwilioSignatureHash } | null {
  const fields = new Map<string, string>();
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at !== -1) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const algorithm = (fields.get("algorithm") || "HMAC_SHA1").toUpperCase();
  const hash = algorithm === "HMAC_SHA1" ? "sha1" : algorithm === "HMAC_SHA256" ? "sha256" : null;
  return hash === null ? null : { key: fields.get("key") || null, hash };
}

/** Scheme, authority split at the port, and the rest, without normalizing anything. */
function splitUrl(url: string) {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (!match) return null;
  const [prefix, scheme, authority] = match as unknown as [string, string, string];
  const userEnd = authority.lastIndexOf("@");
  const hostAndPort = authority.slice(userEnd + 1);
  const portAt = hostAndPort.indexOf(":", hostAndPort.lastIndexOf("]") + 1);
  return {
    scheme,
    user: authority.slice(0, userEnd + 1),
    host: portAt === -1 ? hostAndPort : hostAndPort.slice(0, portAt),
    port: portAt === -1 ? "" : hostAndPort.slice(portAt),
    rest: url.slice(prefix.length),
  };
}

const withoutPort = (url: string): string => {
  const parts = splitUrl(url);
  return parts ? parts.scheme + parts.user + parts.host + parts.rest : url;
};

const withPort = (url: string): string => {
  const parts = splitUrl(url);
  if (!parts || parts.port) return url;
  const port = parts.scheme.toLowerCase() === "https://" ? ":443" : ":80";
  return parts.scheme + parts.user + parts.host + port + parts.rest;
};

/** The query re-encoded as Node's legacy `querystring` does (`'` becomes `%27`). */
const legacyQuery = (url: string): string => {
  const at = url.indexOf("?");
  if (at === -1 || at === url.length - 1) return url;
  return `${url.slice(0, at)}?${stringify(parse(url.slice(at + 1)))}`;
};

/**
 * The URLs a genuine signature may have been computed over, as twilio-node's `validateRequest`
 * tries them, since Twilio's back ends sign inconsistently: the URL as received without and
 * with its default port, then as `new URL()` normalizes it, without and with the port, each
 * also with its query re-encoded the legacy way.
 */
export function signedUrlVariants(url: string): string[] {
  const variants = [withoutPort(url), withPort(url)];
  const parsed = parseUrl(url);
  if (parsed !== null) {
    const normalized = parsed.toString();
    const bare = withoutPort(normalized);
    const ported = withPort(normalized);
    variants.push(bare, ported, legacyQuery(bare), legacyQuery(ported));
  }
  return [...new Set(variants)];
}

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Whether `signature` is Twilio's for a request to `url` (the public URL Twilio called, query
 * included) with `params`, under any of `signedUrlVariants`; compared in constant time.
 */
export function verifyTwilioSignature(
  authToken: string,
  signature: string,
  url: string,
  params: TwilioParams,
  hash: TwilioSignatureHash = "sha1",
): Verified<"signature_mismatch"> {
  let valid = false;
  // Every variant is computed, so the time taken says nothing about which one matched.
  for (const variant of signedUrlVariants(url)) {
    if (sameText(signature, twilioSignature(authToken, variant, params, hash))) valid = true;
  }
  return valid ? verifiedOk : { ok: false, reason: "signature_mismatch" };
}
