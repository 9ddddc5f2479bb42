import type { FoundLink } from "./found-link.js";
import { isAsciiAlnum, isAsciiLetter, isHexDigit } from "./link-chars.js";

const WHITESPACE = /\s/;

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

const isSchemeChar = (code: number): boolean =>
  isAsciiAlnum(code) || code === 0x2b || code === 0x2d || code === 0x2e;
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
export function findScheme(text: string): FoundLink | null {
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
