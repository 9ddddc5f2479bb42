import fc from "fast-check";
import { VIBER_MAX_PARAM_LENGTH } from "../../campaigns/viber-params.js";

const chars = (text: string): string[] => [...text];

/** Non-empty strings over an alphabet of code points. */
export const word = (alphabet: string, maxLength = 10): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...chars(alphabet)), minLength: 1, maxLength });

/** Cuts a text to at most `max` code points, never splitting a surrogate pair. */
const truncate = (text: string, max: number): string => [...text].slice(0, max).join("");

const pad2 = (n: number): string => String(n).padStart(2, "0");

/** Words of one script each, keyed by script, so glued text can put two scripts side by side. */
export const SCRIPT_ALPHABETS = {
  latin: "abcdefghijklmnopqrstuvwxyzäöüßéñ",
  cyrillic: "абвгдежзийклмнопрстуфхцчшщыэюяАБВ",
  arabic: "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
  cjk: "你好世界谢谢订单已发货今天明天验证码こんにちはありがとうカタナ안녕하세요감사합니다",
  greek: "αβγδεζηθικλμνξοπρστυφχψω",
  hebrew: "אבגדהוזחטיכלמנסעפצקרשת",
  devanagari: "नमस्तेधन्यवाद",
  thai: "สวัสดีขอบคุณครับ",
} as const;
export type ScriptName = keyof typeof SCRIPT_ALPHABETS;
const SCRIPT_NAMES = Object.keys(SCRIPT_ALPHABETS) as ScriptName[];

/** A word of the given script, at most six code points. */
export const scriptWord = (script: ScriptName): fc.Arbitrary<string> =>
  word(SCRIPT_ALPHABETS[script], 6);

/** Emoji (ZWJ sequences, flags, skin tones, keycaps) and symbols, NFKC-letter ones included. */
export const GLUE_SYMBOLS = [
  ..."😀 🎉 🙂 ✅ 🚚 ❤️ 👍🏽 👩‍💻 🇺🇦 1️⃣ → | + ~ $ € £ ¥ © ® ™ ° № ★ ✓ ♥ ⚠️ • ＋".split(" "),
];

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
    "Time: 10:30",
    "Note: hi",
    "Note: see below",
    "Tel: +1 555 0100",
    "Data: 5 GB",
    "Info:Call us",
    "Tip:24/7",
    "Tag:#sale",
    "3:1",
    "50/50",
    "and/or",
  ),
);

/** Words in several scripts, emoji included; joined with spaces they never form a link. */
const proseWord: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: word("abcdefghijklmnopqrstuvwxyz") },
  { weight: 2, arbitrary: word(SCRIPT_ALPHABETS.cyrillic) },
  { weight: 1, arbitrary: word(SCRIPT_ALPHABETS.arabic) },
  { weight: 1, arbitrary: word("你好世界谢谢订单已发货今天明天验证码", 6) },
  { weight: 1, arbitrary: word("こんにちはありがとうカタナ", 6) },
  { weight: 1, arbitrary: word("안녕하세요감사합니다", 6) },
  { weight: 1, arbitrary: word(SCRIPT_ALPHABETS.greek) },
  { weight: 1, arbitrary: word(SCRIPT_ALPHABETS.hebrew) },
  { weight: 1, arbitrary: word(SCRIPT_ALPHABETS.devanagari) },
  { weight: 1, arbitrary: word(SCRIPT_ALPHABETS.thai) },
  { weight: 1, arbitrary: fc.constantFrom("😀", "🎉", "👍🏽", "👩‍💻", "🇺🇦", "❤️", "✅", "🚚") },
);

type Piece = { kind: string; text: string };

// Numbers that read as prose (decimals, versions, dates, times, percentages). Two are never
// glued together: `1.2`, `3.4` and `5.6` would read as the address `1.23.45.6`.
const numberPiece: fc.Arbitrary<Piece> = fc
  .oneof(
    fc.tuple(fc.nat(999), fc.nat(99)).map(([a, b]) => `${a}.${b}`),
    fc.tuple(fc.nat(20), fc.nat(20), fc.nat(99)).map(([a, b, c]) => `v${a}.${b}.${c}`),
    fc
      .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), fc.nat(2100))
      .map(([d, m, y]) => `${pad2(d)}.${pad2(m)}.${y}`),
    fc.tuple(fc.nat(23), fc.nat(59)).map(([h, m]) => `${pad2(h)}:${pad2(m)}`),
    fc.nat(100).map((n) => `${n}%`),
  )
  .map((text) => ({ kind: "number", text }));

const gluePiece: fc.Arbitrary<Piece> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(...SCRIPT_NAMES)
      .chain((kind) => scriptWord(kind).map((text) => ({ kind, text }))),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...GLUE_SYMBOLS).map((text) => ({ kind: "symbol", text })),
  },
  { weight: 2, arbitrary: numberPiece },
);

/**
 * Two to four pieces written without spaces, each of another kind than the one before: words
 * of different scripts, emoji and symbols, prose numbers (`谢谢😀`, `订单12.05.2026已发货`,
 * `Привет👋hello`, `v1.2.3版本`). The detector separates scripts and symbols, so these must
 * still pass.
 */
export const gluedProseArbitrary: fc.Arbitrary<string> = fc
  .array(gluePiece, { minLength: 2, maxLength: 4 })
  .map((pieces) =>
    pieces
      .filter((piece, i) => i === 0 || piece.kind !== pieces[i - 1]?.kind)
      .map((piece) => piece.text)
      .join(""),
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
  { weight: 2, arbitrary: gluedProseArbitrary },
);

/**
 * Ordinary message text without links, at most 125 code points: words of several scripts,
 * emoji, link-like prose (decimals, versions, dates, times, abbreviations), and scripts,
 * emoji and numbers glued without spaces. Tokens are otherwise separated by whitespace,
 * because `word.word` can be a domain (`hello.world`).
 */
export const proseArbitrary: fc.Arbitrary<string> = fc
  .array(proseToken, { minLength: 1, maxLength: 12 })
  .map((tokens) => truncate(tokens.join(" "), VIBER_MAX_PARAM_LENGTH));
