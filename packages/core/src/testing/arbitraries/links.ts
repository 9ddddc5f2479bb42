import fc from "fast-check";
import { KNOWN_SCHEMES, WORD_SCHEMES } from "../../campaigns/link-detection.js";
import {
  GLUE_SYMBOLS,
  proseArbitrary,
  SCRIPT_ALPHABETS,
  type ScriptName,
  scriptWord,
  word,
} from "./prose.js";

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
  domainArbitrary.map((host) => `.${host}`),
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

const casing = (name: string, upper: boolean): string => (upper ? name.toUpperCase() : name);

const schemeArbitrary = fc.oneof(
  // A known scheme is refused with anything but whitespace after its colon.
  fc
    .tuple(
      fc.constantFrom(...KNOWN_SCHEMES, "ms-settings", "web+mastodon"),
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
    .map(([name, upper, rest]) => `${casing(name, upper)}:${rest}`),
  // A word-like one only with a URI after it.
  fc
    .tuple(
      fc.constantFrom(...WORD_SCHEMES),
      fc.boolean(),
      fc.constantFrom("/x", "//host/x", "?q=1", "a=b", "x&y", "me@host", "%3Cid%3E"),
    )
    .map(([name, upper, rest]) => `${casing(name, upper)}:${rest}`),
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

const SCRIPT_TESTS = Object.entries({
  latin: /[\p{scx=Latin}0-9]/u,
  cyrillic: /\p{scx=Cyrillic}/u,
  arabic: /\p{scx=Arabic}/u,
  cjk: /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u,
  greek: /\p{scx=Greek}/u,
  hebrew: /\p{scx=Hebrew}/u,
  devanagari: /\p{scx=Devanagari}/u,
  thai: /\p{scx=Thai}/u,
}) as Array<[ScriptName, RegExp]>;

/** The script of a link's first (or last) letter or digit: glue of that script would join it. */
function edgeScript(link: string, end: "first" | "last"): ScriptName | undefined {
  const points = [...link.normalize("NFKC")].filter((c) => /[\p{L}\p{N}]/u.test(c));
  const edge = end === "first" ? points[0] : points.at(-1);
  return edge === undefined ? undefined : SCRIPT_TESTS.find(([, test]) => test.test(edge))?.[0];
}

const glueOtherThan = (script: ScriptName | undefined): fc.Arbitrary<string> => {
  const scripts = (Object.keys(SCRIPT_ALPHABETS) as ScriptName[]).filter((s) => s !== script);
  return fc.oneof(fc.constantFrom(...GLUE_SYMBOLS), fc.constantFrom(...scripts).chain(scriptWord));
};

/**
 * The link with emoji, symbols or words of another script written right against it, with
 * no space (`访问example.com获取`, `звонитеtel:+1555`, `example.com😀`), optionally disguised
 * by `hideLink` first. A word of the link's own script at an edge would just lengthen its
 * first or last label, so glue words are always of another script.
 */
export function glueLink(link: string): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof(fc.constant(link), hideLink(link)),
      fc.option(glueOtherThan(edgeScript(link, "first")), { nil: "" }),
      fc.option(glueOtherThan(edgeScript(link, "last")), { nil: "" }),
      fc.boolean(),
    )
    .map(([shown, before, after, side]) =>
      before === "" && after === ""
        ? side
          ? `${GLUE_SYMBOLS[0]}${shown}`
          : `${shown}${GLUE_SYMBOLS[0]}`
        : `${before}${shown}${after}`,
    );
}

/** A glued link (see `glueLink`) set between two stretches of prose. */
export function embedGluedInProse(link: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.option(proseArbitrary, { nil: "" }),
      link.chain(glueLink),
      fc.option(proseArbitrary, { nil: "" }),
    )
    .map(([before, glued, after]) =>
      [before, glued, after].filter((part) => part !== "").join(" "),
    );
}
