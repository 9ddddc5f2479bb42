import { createRequire } from "node:module";
import { isIP } from "node:net";
import { LinkifyIt } from "linkify-it";
import type { FoundLink } from "./found-link.js";
import { findIpAddress } from "./ip-addresses.js";
import { isAsciiAlnum } from "./link-chars.js";
import { findScheme } from "./uri-schemes.js";

export type { FoundLink, LinkKind } from "./found-link.js";

export { KNOWN_SCHEMES, WORD_SCHEMES } from "./uri-schemes.js";

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// U+3002 ideographic, U+FF0E fullwidth and U+FF61 halfwidth ideographic full stop.
const LOOK_ALIKE_DOTS = /[\u3002\uFF0E\uFF61]/g;

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

/** Where an `http:` or `https:` URL lies in a text, as linkify-it finds it. */
export interface WebUrlSpan {
  start: number;
  end: number;
}

/**
 * Every `http`/`https` URL of `text` with the configuration of the Viber link rule, on the
 * text as written (no normalization, so the spans index `text` itself). Bare domains, e-mail
 * addresses, IP addresses without a scheme and other schemes are not among them.
 */
export function findWebUrls(text: string): WebUrlSpan[] {
  const matches = getLinkifier().match(text) ?? [];
  return matches
    .filter((match) => match.schema === "http:" || match.schema === "https:")
    .map((match) => ({ start: match.index, end: match.lastIndex }));
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
