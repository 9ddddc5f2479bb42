import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseUrl } from "../support/url.js";
import { hasRedirectableShape } from "./redirect-shape.js";

// The rule sends were stored under before the shape existed, kept here as the oracle: a row
// any send ever stored must still read, or an upgrade would turn good links into corrupt rows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const NOT_IN_A_LOCATION = /[\s\u0000-\u001f\u007f]/u;
const wasTrackable = (url: string): boolean => {
  const parsed = NOT_IN_A_LOCATION.test(url) ? null : parseUrl(url);
  return parsed?.protocol === "http:" || parsed?.protocol === "https:";
};

describe("the shape of a URL a short link may redirect to", () => {
  it("takes http(s) URLs in any case; refuses other schemes, non-URLs and header breakers", () => {
    for (const url of ["https://shop.example/o/1?t=x", "HTTP://a.example", "http:a.example"]) {
      expect(hasRedirectableShape(url), url).toBe(true);
    }
    for (const url of [
      "javascript:alert(1)",
      "data:text/html,x",
      "//evil.example/",
      "not a url",
      " https://a.example",
      "https://a.example/\r\nSet-Cookie: a=b",
      "https://a.example/\u0000",
      "https://a.example/\u00a0",
      "",
    ]) {
      expect(hasRedirectableShape(url), JSON.stringify(url)).toBe(false);
    }
  });

  it("every URL that sends could store has it, and nothing else that parses to http(s)", () => {
    const text = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.webUrl().map((url) => url.toUpperCase()),
      fc
        .tuple(fc.constantFrom("http:", "https:", "HtTp:", "ftp:", "javascript:", ""), fc.string())
        .map(([scheme, rest]) => scheme + rest),
      fc.string({ unit: "binary", maxLength: 40 }),
    );
    fc.assert(
      fc.property(text, (url) => {
        if (wasTrackable(url)) expect(hasRedirectableShape(url)).toBe(true);
        if (hasRedirectableShape(url) && parseUrl(url) !== null) {
          expect(wasTrackable(url)).toBe(true);
        }
      }),
      { numRuns: 2_000, seed: 7 },
    );
  });
});
