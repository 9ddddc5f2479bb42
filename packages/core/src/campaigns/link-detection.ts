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
 * URI schemes refused as `name:` followed by anything but whitespace (plus any `name://`): the
 * IANA permanent and provisional schemes that are not everyday words, historical ones still
 * met in the wild, and the app schemes messengers open. Names starting `ms-`, `web+` or `ext+`
 * are schemes too. A URI holds no whitespace, so `Tel: +1 555` and `Data: 5 GB` stay prose.
 */
export const KNOWN_SCHEMES: ReadonlySet<string> = new Set(
  [
    // IANA permanent.
    "about aaas acap coap coaps coap+tcp coap+ws coaps+tcp coaps+ws data dtn file ftp geo",
    "gopher h323 http https iax icap imap ipn ipps iris.beep iris.lwz iris.xpc iris.xpcs jabber",
    "ldap leaptofrogans mailto msrp msrps mtqp mupdate nfs nntp opaquelocktoken pkcs11 rtsp",
    "rtsps rtspu shttp sip sips sms snmp soap.beep soap.beeps tel telnet tftp thismessage",
    "tn3270 urn vemmi vnc ws wss xcon xcon-userid xmlrpc.beep xmlrpc.beeps xmpp z39.50r z39.50s",
    // IANA provisional.
    "acd adiumxtra adt afs amss appdata barion beshare bitcoin bitcoincash blob bolo browserext",
    "cabal callto casts chrome chrome-extension com-eventbrite-attendee content-type cstr dhttp",
    "diaspora dlna-playcontainer dlna-playsingle dntp dpp dtmi dvb dvx dweb ed2k elsi ethereum",
    "facetime feedready first-run-pen-experience fuchsia-pkg git gitoid gizmoproject gtalk hcap",
    "hxxp hxxps hydrazone iotdisco ipfs ipns irc irc6 ircs isostore itms jms keyparc lastfm",
    "lbry ldaps lorawan lvlt magnet maps market microsoft.windows.camera",
    "microsoft.windows.camera.multipicker microsoft.windows.camera.picker mms msnim mqtt mqtts",
    "mumble mvn mvrp mvrps ocf onenote onenote-cmd openid openpgp4fpr otpauth paparazzi payto",
    "psyc pttp pwid quic-transport redis rediss rmi rsync rtmfp rtmp sarif secondlife",
    "secret-token sftp sgn shc simpleledger skype smtp soldat spiffe spotify ssb ssh starknet",
    "svn swh swid swidpath teamspeak teliaeid thzp udp ut2004 uuid-in-package v-event ventrilo",
    "view-source vscode vscode-insiders vsls wcr webcal wtai wyciwyg xfire xftp xri ymsgr",
    // IANA historical.
    "fax filesystem mailserver prospero snews upt videotex wais wpid z39.50",
    // Apps and wallets with a bare `name:` form (their `name://` links are caught anyway).
    "viber whatsapp tg intent fb fb-messenger instagram vnd.youtube zoommtg msteams itms-apps",
    "itms-services facetime-audio javascript vbscript lightning litecoin dogecoin monero",
  ]
    .join(" ")
    .split(" "),
);

/**
 * Scheme names that are also everyday words or label abbreviations (`Info:`, `Tag:`, `TV:`,
 * `Session:`, `Acct:`, `Line:`). Written right before a colon with no space, they are refused
 * only when what follows looks like a URI: a `/` at once (`tag:/x`, any `name://`), or `=`,
 * `&`, `@` or a `%XX` escape before the next whitespace (`maps:?q=x`, `message:%3Cid%3E`).
 * The trade-off: `Info:Call us`, `Tip:24/7` and `TV:on` pass, and so do the rare bare forms
 * of these schemes (`info:ddc/22`, `news:comp.lang.c`), which no messenger turns into a link.
 */
export const WORD_SCHEMES: ReadonlySet<string> = new Set(
  [
    "aaa acct afp aim android apt ark attachment aw calculator cap cast cid content crid cvs dab",
    "dat dav dict did dis dns doi drm drop eid embedded ens example feed fido finger fish fm gg go",
    "graph ham hcp hyper icon im info ipp iris jar line lpa matrix message messenger mid modem",
    "mt news ni nih notes num oid pack palm payment platform pop pres proxy qb query reload res",
    "resource service session sieve signal simplex smb smp steam stun stuns submit tag things",
    "tip tool turn turns tv unreal upi ves w3 web3 wifi",
  ]
    .join(" ")
    .split(" "),
);

const SCHEME_FAMILIES = ["ms-", "web+", "ext+"];

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// U+3002 ideographic, U+FF0E fullwidth and U+FF61 halfwidth ideographic full stop.
const LOOK_ALIKE_DOTS = /[\u3002\uFF0E\uFF61]/g;
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

// Symbols and "other" numbers; some become letters or digits under NFKC (™ → TM, № → No,
// ① → 1) and would then glue to a host or scheme name.
const SYMBOL = /[\p{S}\p{No}]/gu;
const LETTER_OR_NUMBER = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
const ENCLOSING_MARK = /\p{Me}/u;
const SEPARATOR = /[\p{S}\p{C}]/u;
const ASCII_SYMBOLS = "$+<=>^`|~";
// The scripts told apart (Han, kana and Hangul as one, as they mix within CJK words). A
// character may belong to several (Script_Extensions); the first that matches names it.
const SCRIPTS = [
  "Latin",
  "Han Hiragana Katakana Hangul Bopomofo",
  ..."Cyrillic Greek Arabic Hebrew Armenian Georgian Devanagari Bengali Gurmukhi Gujarati".split(
    " ",
  ),
  ..."Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Khmer".split(" "),
  ..."Ethiopic Mongolian Syriac Thaana".split(" "),
].map((names) => new RegExp(`[${names.replace(/\w+/g, "\\p{scx=$&}").replace(/ /g, "")}]`, "u"));
const LATIN = 0;
const UNLISTED = SCRIPTS.length;
const NO_SCRIPT = -1;

const scriptOf = (char: string): number => {
  const index = SCRIPTS.findIndex((script) => script.test(char));
  return index === -1 ? UNLISTED : index;
};

/** The script a letter or mark continues or starts after a run of `current`. */
const scriptAfter = (current: number, char: string): number =>
  current !== NO_SCRIPT && current !== UNLISTED && SCRIPTS[current]?.test(char)
    ? current
    : scriptOf(char);

/**
 * The normalized copy, with symbols that NFKC turns into letters or digits read as spaces;
 * `normalized` itself when there are none.
 */
function normalizeKeepingSymbolsApart(value: string, normalized: string): string {
  const apart = value.replace(SYMBOL, (symbol) =>
    symbol.charCodeAt(0) >= 0x80 && LETTER_OR_NUMBER.test(symbol.normalize("NFKC")) ? " " : symbol,
  );
  return apart === value ? normalized : normalizeForLinkDetection(apart);
}

/**
 * A copy with a space wherever a host name cannot go on, for the hosts linkify-it misses
 * because it ends them only at whitespace or punctuation: at symbols and emoji
 * (`example.com😀`, `example.com|x`), between letters of two scripts (`访问example.com获取`),
 * and for a dot that follows no letter or digit (`.example.com`). A combining mark on an ASCII
 * character is dropped (`c̲o̲m̲` is `com`); an enclosing one makes a keycap, so a symbol.
 */
function separateHosts(text: string): string {
  const out: string[] = [];
  // The script of the letters and digits just written, or NO_SCRIPT after anything else.
  let script = NO_SCRIPT;
  let afterAscii = false;
  const write = (char: string, next: number): void => {
    if (script !== NO_SCRIPT && next !== script) out.push(" ");
    out.push(char);
    script = next;
  };
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) {
      if (isAsciiAlnum(code)) write(char, LATIN);
      else {
        const blank = (code === 0x2e && script === NO_SCRIPT) || ASCII_SYMBOLS.includes(char);
        out.push(blank ? " " : char);
        script = NO_SCRIPT;
      }
      afterAscii = code > 0x20;
    } else if (MARK.test(char)) {
      if (afterAscii) {
        if (ENCLOSING_MARK.test(char)) {
          out[out.length - 1] = " ";
          script = NO_SCRIPT;
        }
        continue;
      }
      // A mark of another script (a Thai vowel sign after Cyrillic) starts a new run; an
      // inherited one (an accent) goes with any script.
      const next = scriptAfter(script, char);
      if (next === UNLISTED) out.push(char);
      else write(char, next);
    } else {
      afterAscii = false;
      if (LETTER_OR_NUMBER.test(char)) write(char, scriptAfter(script, char));
      else {
        out.push(SEPARATOR.test(char) ? " " : char);
        script = NO_SCRIPT;
      }
    }
  }
  return out.join("");
}

// linkify-it will not start a fuzzy link right after these, nor take a host with a port.
const LINK_BLOCKERS = /[:/@_]|\.{2,}|-+/g;

/**
 * Blanks the blockers; a run of hyphens stays only between two letters or digits, where it
 * belongs to the host (`xn--p1ai`, `my-shop.com`), not before or after one (`example.com-`).
 */
function blankLinkBlockers(text: string): string {
  return text.replace(LINK_BLOCKERS, (run, at: number) => {
    if (run.charAt(0) !== "-") return " ";
    const inside =
      LETTER_OR_NUMBER.test(text.charAt(at - 1)) &&
      LETTER_OR_NUMBER.test(text.charAt(at + run.length));
    return inside ? run : " ";
  });
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
const isHexDigit = (code: number): boolean => isIpv6Char(code) && code !== 0x2e && code !== 0x3a;
// A scheme name may follow a letter of another script (`请拨打tel:`), not a Latin letter or a
// digit, where it would end a longer word (`hotel:5stars`).
const CONTINUES_WORD = /[\p{scx=Latin}\p{N}]/u;

function isSchemeName(name: string): boolean {
  return KNOWN_SCHEMES.has(name) || SCHEME_FAMILIES.some((family) => name.startsWith(family));
}

/**
 * For each position, whether a URI's `=`, `&`, `@` or `%XX` comes before the next whitespace:
 * one backward pass, so checking every word scheme's payload stays linear.
 */
function uriMarksAhead(text: string): boolean[] {
  const ahead = new Array<boolean>(text.length + 1).fill(false);
  for (let i = text.length - 1; i >= 0; i -= 1) {
    const code = text.charCodeAt(i);
    if (WHITESPACE.test(text.charAt(i))) continue;
    ahead[i] =
      code === 0x3d ||
      code === 0x26 ||
      code === 0x40 ||
      (code === 0x25 && isHexDigit(text.charCodeAt(i + 1)) && isHexDigit(text.charCodeAt(i + 2))) ||
      (ahead[i + 1] ?? false);
  }
  return ahead;
}

/**
 * A URI scheme at a word start: a known scheme name followed by `:` and something other than
 * whitespace, or a word-like one (WORD_SCHEMES) followed by what reads as a URI; or any
 * `name://`.
 */
function findScheme(text: string): FoundLink | null {
  let marks: boolean[] | undefined;
  for (let i = 0; i < text.length; i += 1) {
    if (!isSchemeChar(text.charCodeAt(i))) continue;
    let end = i;
    while (end < text.length && isSchemeChar(text.charCodeAt(end))) end += 1;
    let start = i;
    while (start < end && !isAsciiLetter(text.charCodeAt(start))) {
      if (isAsciiAlnum(text.charCodeAt(start))) start = end;
      else start += 1;
    }
    const next = text.charAt(end + 1);
    if (
      start < end &&
      text.charCodeAt(end) === 0x3a &&
      next !== "" &&
      !WHITESPACE.test(next) &&
      !CONTINUES_WORD.test(previousCodePoint(text, i))
    ) {
      const name = text.slice(start, end).toLowerCase();
      if (isSchemeName(name)) return { kind: "scheme", match: text.slice(start, end + 1) };
      if (WORD_SCHEMES.has(name)) {
        marks ??= uriMarksAhead(text);
        if (next === "/" || marks[end + 1]) {
          return { kind: "scheme", match: text.slice(start, end + 1) };
        }
      }
    }
    i = end;
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

function previousCodePoint(text: string, index: number): string {
  if (index === 0) return "";
  const low = text.charCodeAt(index - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return String.fromCodePoint(text.codePointAt(from) ?? 0);
}

/** linkify-it, then addresses: one copy of the text. */
const findHostOrAddress = (text: string): FoundLink | null =>
  findWithLinkify(text) ?? findIpAddress(text);

/**
 * The first link in a value (URL, bare or internationalized domain, email address, IPv4/IPv6
 * address or URI scheme), or `null`. Reads normalized copies; the value itself is untouched.
 * Linear in the value's length: linkify-it's expressions, plus single scans for addresses,
 * schemes and host separators.
 */
export function findLink(value: string): FoundLink | null {
  const text = normalizeForLinkDetection(value);
  const found = findHostOrAddress(text) ?? findScheme(text);
  if (found !== null) return found;
  const apart = normalizeKeepingSymbolsApart(value, text);
  const separated = separateHosts(apart);
  // linkify-it misses hosts glued to a `:` or `/`, or followed by a port (`x:example.com`,
  // `example.com:8080`); blanking those exposes them.
  const blanked = blankLinkBlockers(separated);
  return (
    (apart === text ? null : findScheme(apart)) ??
    (separated === text ? null : findHostOrAddress(separated)) ??
    (blanked === separated ? null : findWithLinkify(blanked))
  );
}
