/** Character classes of the link scans, on UTF-16 code units. */

export const isAsciiAlnum = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a);
export const isAsciiLetter = (code: number): boolean =>
  (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
export const isDigitOrDot = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || code === 0x2e;
export const isIpv6Char = (code: number): boolean =>
  isDigitOrDot(code) ||
  code === 0x3a ||
  (code >= 0x41 && code <= 0x46) ||
  (code >= 0x61 && code <= 0x66);
export const isHexDigit = (code: number): boolean =>
  isIpv6Char(code) && code !== 0x2e && code !== 0x3a;
