import type { ParamsCampaign } from "@tidings/core";

/** One input of the validator benchmark, with the verdict the validator must reach on it. */
export interface ValidatorCase {
  name: string;
  campaign: ParamsCampaign;
  params: Record<string, string>;
  /** `true` when the params must be accepted; otherwise the rule that must refuse them. */
  expect: true | "no_links" | "max_length";
}

const OTP: ParamsCampaign = {
  channel: "viber",
  category: "otp",
  template: "Your {{brand}} code is {{pin}}.",
};
const TRANSACTIONAL: ParamsCampaign = {
  channel: "viber",
  category: "transactional",
  template: "Hi {{name}}, {{detail}}",
};
const ONE_VALUE: ParamsCampaign = {
  channel: "viber",
  category: "transactional",
  template: "{{value}}",
};

/** `pattern` repeated and cut to exactly `length` code points. */
export function codePoints(pattern: string, length = 125): string {
  const unit = [...pattern];
  return Array.from({ length }, (_, i) => unit[i % unit.length]).join("");
}

const ZWJ = "\u200D";
const ZWSP = "\u200B";
const IDEOGRAPHIC_DOT = "\u3002";
const FULLWIDTH_DOT = "\uFF0E";

/** A hidden link of `host` in fullwidth letters with zero-width joiners and a look-alike dot. */
const disguised = (label: string, tld: string): string =>
  [...label].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join(ZWJ) +
  IDEOGRAPHIC_DOT +
  [...tld].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join(ZWSP);

/** Typical values first, then the worst cases: 125 code points, many look-alike characters. */
export const VALIDATOR_CASES: ValidatorCase[] = [
  {
    name: "typical OTP (brand, 6-digit pin)",
    campaign: OTP,
    params: { brand: "Acme", pin: "482913" },
    expect: true,
  },
  {
    name: "typical transactional (name, a sentence)",
    campaign: TRANSACTIONAL,
    params: {
      name: "Anna Müller",
      detail: "your order 12345 ships Tuesday between 9:00 and 12:00.",
    },
    expect: true,
  },
  {
    name: "typical transactional with a link (refused)",
    campaign: TRANSACTIONAL,
    params: { name: "Anna", detail: "track it at example.com/track/12345" },
    expect: "no_links",
  },
  {
    name: "125 fullwidth letters, look-alike dots and zero-width joiners, no link",
    campaign: ONE_VALUE,
    params: { value: codePoints(`ｑｘ${ZWJ}${IDEOGRAPHIC_DOT}${ZWSP}ｚ${FULLWIDTH_DOT}${ZWJ} `) },
    expect: true,
  },
  {
    name: "125 look-alikes hiding a domain at the end",
    campaign: ONE_VALUE,
    params: {
      value: `${codePoints(`ｑ${ZWJ}${FULLWIDTH_DOT} `, 125 - [...disguised("example", "com")].length)}${disguised("example", "com")}`,
    },
    expect: "no_links",
  },
  {
    name: "125 code points of digits and look-alike dots (IP scanning)",
    campaign: ONE_VALUE,
    params: { value: codePoints(`1${FULLWIDTH_DOT}2${IDEOGRAPHIC_DOT}3${ZWJ} `) },
    expect: true,
  },
  {
    name: "125 code points of hyphens, colons and at signs (link blockers)",
    campaign: ONE_VALUE,
    params: { value: codePoints(`a-${ZWJ}:@-b${ZWSP}_`) },
    expect: true,
  },
  {
    name: "126 code points (over the limit, refused)",
    campaign: ONE_VALUE,
    params: { value: codePoints(`ｑ${ZWJ}ｘ `, 126) },
    expect: "max_length",
  },
];
