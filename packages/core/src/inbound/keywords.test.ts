import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_KEYWORDS, keywordMatcher, parseKeywords } from "./keywords.js";

const match = keywordMatcher();

/** The fullwidth form of an ASCII letter or digit (U+FF01…U+FF5E), which NFKC folds back. */
const fullwidth = (char: string): string =>
  /[!-~]/.test(char) ? String.fromCharCode(char.charCodeAt(0) + 0xfee0) : char;

const oneWordKeywords = [
  ...DEFAULT_KEYWORDS.opt_out,
  ...DEFAULT_KEYWORDS.opt_in,
  ...DEFAULT_KEYWORDS.help,
].filter((k) => !k.includes(" "));

describe("keyword matching", () => {
  it("ignores case, punctuation, Unicode width and trailing words", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...oneWordKeywords),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.constantFrom("", "!", "...", "?!", " :)", ","),
        fc.constantFrom("", " ", "  \t"),
        fc.array(fc.constantFrom("please", "now", "thanks", "me", "stop"), { maxLength: 3 }),
        (keyword, lower, wide, punctuation, space, trailing) => {
          const written = [...keyword]
            .map((char, i) => (lower[i % 12] ? char.toLowerCase() : char))
            .map((char, i) => (wide[i % 12] ? fullwidth(char) : char))
            .join("");
          const text = `${space}${written}${punctuation} ${trailing.join(" ")}`;
          const expected = match(keyword);
          expect(expected).not.toBeNull();
          expect(match(text)?.keywordClass).toBe(expected?.keywordClass);
        },
      ),
    );
  });

  it("knows the two-word OPT OUT, the defaults of each class, and nothing else", () => {
    expect(match("opt out please")).toEqual({ keywordClass: "opt_out", keyword: "OPT OUT" });
    expect(match("Opt-out")).toEqual({ keywordClass: "opt_out", keyword: "OPTOUT" });
    expect(match("unstop")?.keywordClass).toBe("opt_in");
    expect(match("info?")?.keywordClass).toBe("help");
    expect(match("please stop")).toBeNull();
    expect(match("stopping")).toBeNull();
    expect(match("")).toBeNull();
  });

  it("TIDINGS_KEYWORDS adds words and refuses what is not a word list", () => {
    const lists = parseKeywords('{"opt_out":["ARRET","baja"],"help":["AIDE"]}')._unsafeUnwrap();
    const french = keywordMatcher(lists);
    expect(french("Arrêt")).toBeNull();
    expect(french("arret!")?.keywordClass).toBe("opt_out");
    expect(french("BAJA")?.keywordClass).toBe("opt_out");
    expect(french("aide")?.keywordClass).toBe("help");
    expect(french("STOP")?.keywordClass).toBe("opt_out");
    expect(parseKeywords("[]").isErr()).toBe(true);
    expect(parseKeywords('{"stop":["X"]}').isErr()).toBe(true);
    expect(parseKeywords('{"opt_out":[1]}').isErr()).toBe(true);
    expect(parseKeywords('{"opt_out":["a b c"]}').isErr()).toBe(true);
    expect(parseKeywords("not json").isErr()).toBe(true);
  });
});
