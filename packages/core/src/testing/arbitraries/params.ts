import fc from "fast-check";
import { KNOWN_SCHEMES } from "../../campaigns/link-detection.js";
import { parseTemplate } from "../../campaigns/template.js";
import { type ParamsCampaign, VIBER_MAX_PARAM_LENGTH } from "../../campaigns/viber-params.js";

const chars = (text: string): string[] => [...text];
const word = (alphabet: string, maxLength = 10): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...chars(alphabet)), minLength: 1, maxLength });

/** Cuts a text to at most `max` code points, never splitting a surrogate pair. */
const truncate = (text: string, max: number): string => [...text].slice(0, max).join("");

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * Prose tokens that look a little like links but are not: decimals, versions, dates, times,
 * abbreviations, order numbers, prices, labels with a colon and a space.
 */
const proseLookalike: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.nat(999), fc.nat(99)).map(([a, b]) => `${a}.${b}`),
  fc.tuple(fc.nat(20), fc.nat(20), fc.nat(99)).map(([a, b, c]) => `v${a}.${b}.${c}`),
  fc
    .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), fc.nat(2100))
    .map(([d, m, y]) => `${pad2(d)}.${pad2(m)}.${y}`),
  fc.tuple(fc.nat(23), fc.nat(59)).map(([h, m]) => `${pad2(h)}:${pad2(m)}`),
  fc.tuple(fc.nat(9999), fc.nat(99)).map(([a, b]) => `$${a}.${pad2(b)}`),
  fc.nat(100).map((n) => `${n}%`),
  fc.nat(999).map((n) => `Order #A-${n}`),
  fc.constantFrom(
    "e.g.",
    "i.e.",
    "etc.",
    "Mr. Smith",
    "Dr. Who",
    "No.5",
    "a.m.",
    "p.m.",
    "U.S.",
    "Time: 12:30",
    "Note: hi",
    "Tel: +1 555 0100",
    "Data: 5 GB",
    "3:1",
    "50/50",
    "and/or",
  ),
);

/** Words in several scripts, emoji included; joined with spaces they never form a link. */
const proseWord: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: word("abcdefghijklmnopqrstuvwxyz") },
  { weight: 2, arbitrary: word("абвгдежзийклмнопрстуфхцчшщыэюяАБВ") },
  { weight: 1, arbitrary: word("ابتثجحخدذرزسشصضطظعغفقكلمنهوي") },
  { weight: 1, arbitrary: word("你好世界谢谢订单已发货今天明天验证码", 6) },
  { weight: 1, arbitrary: word("こんにちはありがとうカタナ", 6) },
  { weight: 1, arbitrary: word("αβγδεζηθικλμνξοπρστυφχψω") },
  { weight: 1, arbitrary: word("אבגדהוזחטיכלמנסעפצקרשת") },
  { weight: 1, arbitrary: word("नमस्तेधन्यवाद") },
  { weight: 1, arbitrary: fc.constantFrom("😀", "🎉", "👍🏽", "👩‍💻", "🇺🇦", "❤️", "✅", "🚚") },
);

const proseToken: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: proseWord },
  {
    weight: 1,
    arbitrary: fc
      .tuple(proseWord, fc.constantFrom(",", ".", "!", "?", ";", ":", "…", "。", "，"))
      .map(([w, p]) => w + p),
  },
  { weight: 2, arbitrary: proseLookalike },
);

/**
 * Ordinary message text without links, at most 125 code points: words of several scripts,
 * emoji, and link-like prose (decimals, versions, dates, times, abbreviations). Tokens are
 * always separated by whitespace, because `word.word` can be a domain (`hello.world`).
 */
export const proseArbitrary: fc.Arbitrary<string> = fc
  .array(proseToken, { minLength: 1, maxLength: 12 })
  .map((tokens) => truncate(tokens.join(" "), VIBER_MAX_PARAM_LENGTH));

const LOOK_ALIKE_DOTS = ["。", "．", "｡", "․", "﹒"];
// Default-ignorable code points: zero-width space/joiners, marks, word joiner, BOM, soft
// hyphen, grapheme joiner, Mongolian vowel separator, Hangul filler, variation selector, tag.
const INVISIBLES = [
  ..."\u200B\u200C\u200D\u200E\u2060\u2063\uFEFF\u00AD\u034F\u061C\u180E\u3164\uFE0F\u{E0041}",
];

const alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
const label: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: word(alnum, 12) },
  { weight: 1, arbitrary: fc.tuple(word(alnum, 6), word(alnum, 6)).map(([a, b]) => `${a}-${b}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "пример",
      "münchen",
      "例子",
      "bücher",
      "δοκιμή",
      "مثال",
      "xn--80ak6aa92e",
      "xn--bcher-kva",
      "xn--fsqu00a",
    ),
  },
);
const tld = fc.constantFrom(
  ...["com", "org", "net", "io", "de", "ru", "uk", "co", "app", "dev", "info", "shop", "jp"],
  ...["рф", "中国", "xn--p1ai", "online", "ua", "COM"],
);

/** Domains with real TLDs (the detector knows the full list), IDN and punycode included. */
export const domainArbitrary: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([www, labels, top]) => `${www ? "www." : ""}${[...labels, top].join(".")}`);

const path = fc.option(
  fc
    .array(word(`${alnum}-_`, 8), { minLength: 1, maxLength: 3 })
    .map((parts) => `/${parts.join("/")}`),
  { nil: "" },
);
const port = fc.integer({ min: 1, max: 65535 });

const urlArbitrary = fc.oneof(
  fc
    .tuple(fc.constantFrom("http", "https", "ftp", "HTTPS"), domainArbitrary, fc.option(port), path)
    .map(([scheme, host, p, rest]) => `${scheme}://${host}${p === null ? "" : `:${p}`}${rest}`),
  fc.tuple(domainArbitrary, path).map(([host, rest]) => `//${host}${rest || "/"}`),
  fc.tuple(domainArbitrary, port, path).map(([host, p, rest]) => `${host}:${p}${rest}`),
  fc.tuple(domainArbitrary, path).map(([host, rest]) => host + rest),
);

const emailArbitrary = fc
  .tuple(word(alnum, 10), fc.option(fc.tuple(fc.constantFrom(".", "+", "_"), word(alnum, 6))))
  .chain(([local, extra]) =>
    domainArbitrary.map((host) => `${local}${extra === null ? "" : extra.join("")}@${host}`),
  );

const ipv4Arbitrary = fc
  .tuple(fc.ipV4(), port, fc.constantFrom("bare", "port", "brackets", "path"))
  .map(([ip, p, form]) =>
    form === "port"
      ? `${ip}:${p}`
      : form === "brackets"
        ? `[${ip}]`
        : form === "path"
          ? `${ip}/x`
          : ip,
  );

// `::`, `add::` and other letter-only two-colon forms read as prose, so they are not generated.
const ipv6Arbitrary = fc
  .tuple(
    fc.ipV6().filter((ip) => /[0-9]/.test(ip) || ip.split(":").length > 3),
    port,
    fc.constantFrom("bare", "brackets", "port"),
  )
  .map(([ip, p, form]) =>
    form === "bare" ? ip : form === "brackets" ? `[${ip}]` : `[${ip}]:${p}`,
  );

const schemeArbitrary = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...KNOWN_SCHEMES),
      fc.boolean(),
      fc.constantFrom(
        "+15551234",
        "alert(1)",
        "//chat",
        "text/html,hi",
        "x",
        "user?call",
        "48.2,16.3",
      ),
    )
    .map(([name, upper, rest]) => `${upper ? name.toUpperCase() : name}:${rest}`),
  fc
    .tuple(word("abcdefghijklmnopqrstuvwxyz", 8), word(`${alnum}/?=&`, 12))
    .map(([name, rest]) => `${name}://${rest}`),
);

/** Every kind of link the Viber rule refuses: URLs, domains, emails, IPv4/IPv6 and schemes. */
export const linkArbitrary: fc.Arbitrary<string> = fc.oneof(
  urlArbitrary,
  emailArbitrary,
  ipv4Arbitrary,
  ipv6Arbitrary,
  schemeArbitrary,
);

const FULLWIDTH_OFFSET = 0xff01 - 0x21;
const toFullwidth = (text: string): string =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + FULLWIDTH_OFFSET));

/**
 * The same link disguised: invisible characters inserted, dots swapped for look-alike full
 * stops, sometimes fullwidth ASCII. Normalized, it reads as the original link again.
 */
export function hideLink(link: string): fc.Arbitrary<string> {
  const dots = [...link].filter((c) => c === ".").length;
  return fc
    .tuple(
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLES)), { minLength: 1, maxLength: 4 }),
      fc.array(fc.constantFrom(".", ...LOOK_ALIKE_DOTS), { minLength: dots, maxLength: dots }),
      fc.boolean(),
    )
    .map(([insertions, dotChoices, fullwidth]) => {
      let dot = 0;
      const points = [...(fullwidth ? toFullwidth(link) : link)].map((c) =>
        c === "." || c === "．" ? (dotChoices[dot++] ?? c) : c,
      );
      for (const [at, invisible] of insertions) {
        points.splice(at % (points.length + 1), 0, invisible);
      }
      return points.join("");
    });
}

/** A link set between two stretches of prose, with ordinary punctuation around it. */
export function embedInProse(link: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.option(proseArbitrary, { nil: "" }),
      fc.constantFrom(" ", "\n", " (", ", ", ": ", " «"),
      link,
      fc.constantFrom(" ", ") ", ". ", ", ", "! ", "\n", "» "),
      fc.option(proseArbitrary, { nil: "" }),
    )
    .map(([before, open, text, close, after]) => `${before}${open}${text}${close}${after}`);
}

function placeholdersOf(campaign: ParamsCampaign): string[] {
  const names = parseTemplate(campaign.template).match(
    (ok) => ok,
    (issues) => {
      throw new Error(
        `The campaign template is invalid: ${issues.map((i) => i.message).join(" ")}`,
      );
    },
  );
  return campaign.category === "otp" && !names.includes("pin") ? [...names, "pin"] : names;
}

const pinArbitrary: fc.Arbitrary<string | number> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...chars("0123456789")), minLength: 4, maxLength: 8 }),
  fc.integer({ min: 0, max: 99_999_999 }),
  fc.string({
    unit: fc.constantFrom(...chars("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")),
    minLength: 6,
    maxLength: 6,
  }),
);

const valueArbitrary: fc.Arbitrary<string | number> = fc.oneof(
  { weight: 6, arbitrary: proseArbitrary },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Params that pass `validateParams` for this campaign (values are link-free prose or numbers). */
export function validParamsFor(
  campaign: ParamsCampaign,
): fc.Arbitrary<Record<string, string | number>> {
  const names = placeholdersOf(campaign);
  const values = names.map((name) =>
    campaign.category === "otp" && name === "pin" ? pinArbitrary : valueArbitrary,
  );
  return fc
    .tuple(...values)
    .map((generated) => Object.fromEntries(generated.map((value, i) => [names[i], value])));
}

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant({ nested: "x" }),
  fc.constant(["x"]),
  fc.constant(Number.NaN),
);

/** Params that `validateParams` refuses for this campaign, each with at least one issue. */
export function invalidParamsFor(campaign: ParamsCampaign): fc.Arbitrary<unknown> {
  const names = placeholdersOf(campaign);
  const valid = validParamsFor(campaign);
  const someName = fc.constantFrom(...names);
  const withValue = (value: fc.Arbitrary<unknown>, name: fc.Arbitrary<string> = someName) =>
    fc.tuple(valid, name, value).map(([params, key, v]) => ({ ...params, [key]: v }));

  const options: Array<fc.Arbitrary<unknown>> = [
    fc.oneof(fc.constant(null), fc.array(fc.string()), fc.string(), fc.integer(), fc.boolean()),
    fc
      .tuple(valid, word("abcdefghijklmnopqrstuvwxyz_", 12), proseArbitrary)
      .filter(([, key]) => !names.includes(`unused_${key}`))
      .map(([params, key, v]) => ({ ...params, [`unused_${key}`]: v })),
  ];
  if (names.length > 0) {
    options.push(
      fc.tuple(valid, someName).map(([params, key]) => {
        const rest = { ...params };
        delete rest[key];
        return rest;
      }),
      withValue(wrongType),
    );
  }
  if (names.length > 0 && campaign.channel === "viber") {
    const tooLong = fc
      .tuple(fc.constantFrom("a", "я", "中", "😀"), fc.integer({ min: 1, max: 200 }))
      .map(([c, extra]) => c.repeat(VIBER_MAX_PARAM_LENGTH + extra));
    options.push(withValue(tooLong));
    if (campaign.category !== "promotional") {
      options.push(withValue(embedInProse(fc.oneof(linkArbitrary, linkArbitrary.chain(hideLink)))));
    }
  }
  if (campaign.category === "otp") {
    options.push(withValue(fc.constantFrom("", "   ", "\t\n", null), fc.constant("pin")));
  }
  return fc.oneof(...options);
}
