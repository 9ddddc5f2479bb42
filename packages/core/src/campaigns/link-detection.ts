import { createRequire } from "node:module";
import { isIP } from "node:net";
import { LinkifyIt } from "linkify-it";

export type LinkKind = "url" | "domain" | "email" | "ip" | "scheme";

/** A link found in a value; `match` is the text as it reads after normalization. */
export interface FoundLink {
  kind: LinkKind;
  match: string;
}

/**
 * URI schemes refused when written as `name:` (plus any `name://`). Only names of common
 * schemes are listed because a general `word:` would refuse prose such as `Time: 12:30`.
 */
export const KNOWN_SCHEMES: ReadonlySet<string> = new Set(
  [
    "https http tel viber mailto sms javascript vbscript data ftp ws wss file skype whatsapp tg",
    "intent market geo callto facetime magnet irc ssh sftp git blob about chrome sip sips xmpp",
    "webcal bitcoin telnet ldap rtsp",
  ]
    .join(" ")
    .split(" "),
);

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// U+3002 ideographic, U+FF0E fullwidth and U+FF61 halfwidth ideographic full stop.
const LOOK_ALIKE_DOTS = /[\u3002\uFF0E\uFF61]/g;
// linkify-it will not start a fuzzy link right after these, nor take a host with a port. A
// hyphen inside a word stays: it belongs to the host (`xn--p1ai`, `my-shop.com`).
const LINK_BLOCKERS = /[:/@_]|\.{2,}|(?<![\p{L}\p{N}-])-+/gu;
const WHITESPACE = /\s/;

/**
 * The copy that detection reads: NFKC, default-ignorable code points (zero-width characters,
 * soft hyphen, BOM, variation selectors, tags…) removed and look-alike full stops made `.`.
 * Ignorables are stripped before and after NFKC because NFKC can produce some (U+3164).
 */
export function normalizeForLinkDetection(value: string): string {
  return value
    .replace(DEFAULT_IGNORABLE, "")
    .normalize("NFKC")
    .replace(DEFAULT_IGNORABLE, "")
    .replace(LOOK_ALIKE_DOTS, ".");
}

let linkifier: LinkifyIt | undefined;

/** Built on first use: compiling the full TLD list costs a few milliseconds. */
function getLinkifier(): LinkifyIt {
  if (linkifier === undefined) {
    // `tlds` is a JSON module; require keeps it loadable from plain Node ESM as well.
    const tlds = createRequire(import.meta.url)("tlds") as string[];
    linkifier = new LinkifyIt({ fuzzyLink: true, fuzzyIP: true, fuzzyEmail: true }).tlds(tlds);
  }
  return linkifier;
}

function findWithLinkify(text: string): FoundLink | null {
  const linkify = getLinkifier();
  if (!linkify.test(text)) return null;
  const first = linkify.match(text)?.[0];
  if (first === undefined) return null;
  if (first.schema === "mailto:") return { kind: "email", match: first.raw };
  if (first.schema !== "") return { kind: "url", match: first.raw };
  const host = first.raw.split(/[/?#]/, 1)[0] ?? first.raw;
  return { kind: isIP(host) === 0 ? "domain" : "ip", match: first.raw };
}

const isAsciiAlnum = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a);
const isAsciiLetter = (code: number): boolean =>
  (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isDigitOrDot = (code: number): boolean => (code >= 0x30 && code <= 0x39) || code === 0x2e;
const isIpv6Char = (code: number): boolean =>
  isDigitOrDot(code) ||
  code === 0x3a ||
  (code >= 0x41 && code <= 0x46) ||
  (code >= 0x61 && code <= 0x66);

/** True when the characters around `text[start, end)` do not continue an ASCII word. */
function standsAlone(text: string, start: number, end: number): boolean {
  return (
    (start === 0 || !isAsciiAlnum(text.charCodeAt(start - 1))) &&
    (end >= text.length || !isAsciiAlnum(text.charCodeAt(end)))
  );
}

// The longest textual IPv6 address (with an embedded IPv4) is 45 characters.
const MAX_IP_LENGTH = 45;

/**
 * IPv4 and IPv6 addresses, bare, with a port or in brackets: each maximal run of address
 * characters is checked a constant number of times with `net.isIP`, so the scan is linear.
 * An IPv6 made only of letters and at most two colons (`add::`, `::`) reads as prose, not
 * an address, and is let through.
 */
function findIpAddress(text: string): FoundLink | null {
  const candidatesOf = (start: number, end: number, v6: boolean): Array<[number, number]> => {
    let from = start;
    let to = end;
    while (from < to && text.charCodeAt(from) === 0x2e) from += 1;
    while (to > from && text.charCodeAt(to - 1) === 0x2e) to -= 1;
    const spans: Array<[number, number]> = [[from, to]];
    if (!v6) return spans;
    // A label colon before (`IP:2001:db8::1`) or a sentence colon after may touch the address.
    const leading = text.startsWith(":", from) && !text.startsWith("::", from);
    const trailing = text.endsWith(":", to) && !text.endsWith("::", to);
    if (leading) spans.push([from + 1, to]);
    if (trailing) spans.push([from, to - 1]);
    if (leading && trailing) spans.push([from + 1, to - 1]);
    return spans;
  };
  const check = (start: number, end: number, v6: boolean): FoundLink | null => {
    for (const [from, to] of candidatesOf(start, end, v6)) {
      if (to - from > MAX_IP_LENGTH || to - from < 2 || !standsAlone(text, from, to)) continue;
      const candidate = text.slice(from, to);
      const version = isIP(candidate);
      if (version === 4 && !v6) return { kind: "ip", match: candidate };
      if (version === 6 && (/[0-9]/.test(candidate) || candidate.split(":").length > 3)) {
        return { kind: "ip", match: candidate };
      }
    }
    return null;
  };
  for (const [inRun, v6] of [
    [isDigitOrDot, false],
    [isIpv6Char, true],
  ] as const) {
    let start = -1;
    for (let i = 0; i <= text.length; i += 1) {
      const inside = i < text.length && inRun(text.charCodeAt(i));
      if (inside && start === -1) start = i;
      if (!inside && start !== -1) {
        const found = check(start, i, v6);
        if (found !== null) return found;
        start = -1;
      }
    }
  }
  return null;
}

const isSchemeChar = (code: number): boolean =>
  isAsciiAlnum(code) || code === 0x2b || code === 0x2d || code === 0x2e;

/**
 * A known scheme name followed by `:` and something other than whitespace (a URI holds no
 * whitespace, so `Tel: +1 555` and `Data: 5 GB` stay prose), at a word start; or any `name://`.
 */
function findScheme(text: string): FoundLink | null {
  for (let i = 0; i < text.length; i += 1) {
    if (!isAsciiLetter(text.charCodeAt(i))) continue;
    if (i > 0 && /[\p{L}\p{N}]/u.test(text.charAt(i - 1))) continue;
    let end = i;
    while (end < text.length && isAsciiLetter(text.charCodeAt(end))) end += 1;
    const next = text.charAt(end + 1);
    if (
      text.charCodeAt(end) === 0x3a &&
      next !== "" &&
      !WHITESPACE.test(next) &&
      KNOWN_SCHEMES.has(text.slice(i, end).toLowerCase())
    ) {
      return { kind: "scheme", match: text.slice(i, end + 1) };
    }
    i = end - 1;
  }
  // Each backward walk stops at the previous `:` or `/`, so the walks never overlap.
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 3)) {
    let start = at;
    let hasLetter = false;
    while (start > 0 && isSchemeChar(text.charCodeAt(start - 1))) {
      start -= 1;
      if (isAsciiLetter(text.charCodeAt(start))) hasLetter = true;
    }
    if (hasLetter) return { kind: "scheme", match: text.slice(start, at + 3) };
  }
  return null;
}

/**
 * The first link in a value (URL, bare or internationalized domain, email address, IPv4/IPv6
 * address or URI scheme), or `null`. Reads a normalized copy; the value itself is untouched.
 * Linear in the value's length: linkify-it's expressions, plus single scans for addresses
 * and schemes.
 */
export function findLink(value: string): FoundLink | null {
  const text = normalizeForLinkDetection(value);
  return (
    findWithLinkify(text) ??
    findIpAddress(text) ??
    findScheme(text) ??
    // linkify-it misses hosts glued to a `:` or `/`, or followed by a port (`x:example.com`,
    // `example.com:8080`); splitting there exposes them.
    findWithLinkify(text.replace(LINK_BLOCKERS, " "))
  );
}
