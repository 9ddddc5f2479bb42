import { isIP } from "node:net";
import type { FoundLink } from "./found-link.js";
import { isAsciiAlnum, isDigitOrDot, isIpv6Char } from "./link-chars.js";

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
export function findIpAddress(text: string): FoundLink | null {
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
