import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hideLink, linkArbitrary, proseArbitrary } from "../testing/arbitraries/params.js";
import { findLink, normalizeForLinkDetection } from "./link-detection.js";

describe("findLink on the examples of the Viber link rule", () => {
  it.each([
    ["example。com", "domain", "example.com"],
    ["example．com", "domain", "example.com"],
    ["example｡com", "domain", "example.com"],
    ["exa\u200Bmple.com", "domain", "example.com"],
    ["exam\u00ADple\uFEFF.com", "domain", "example.com"],
    ["10.0.0.1:8080", "ip", "10.0.0.1"],
    ["10.0.0.1", "ip", "10.0.0.1"],
    ["[10.0.0.1]", "ip", "10.0.0.1"],
    ["[::1]", "ip", "::1"],
    ["[2001:db8::1]:443", "ip", "2001:db8::1"],
    ["2001:db8::1", "ip", "2001:db8::1"],
    ["IP:2001:db8::1.", "ip", "2001:db8::1"],
    ["tel:+15551234", "scheme", "tel:"],
    ["viber://chat", "scheme", "viber:"],
    ["javascript:alert(1)", "scheme", "javascript:"],
    ["JavaScript:alert(1)", "scheme", "JavaScript:"],
    ["myapp://open", "scheme", "myapp://"],
    ["xn--80ak6aa92e.com", "domain", "xn--80ak6aa92e.com"],
    ["пример.рф", "domain", "пример.рф"],
    ["mailto:x@y.z", "email", "mailto:x@y.z"],
    ["bob@example.com", "email", "bob@example.com"],
    ["https://example.com/a?b=1", "url", "https://example.com/a?b=1"],
    ["example.com:8080/x", "domain", "example.com"],
    ["пример.xn--p1ai:1", "domain", "пример.xn--p1ai"],
    ["see -example.com", "domain", "example.com"],
    ["wait...example.com", "domain", "example.com"],
    ["ＨＴＴＰＳ：／／ｅｘａｍｐｌｅ．ｃｏｍ", "url", "HTTPS://example.com"],
  ] as const)("%j is a %s", (value, kind, match) => {
    expect(findLink(value)).toEqual({ kind, match });
  });
});

describe("findLink keeps ordinary prose passing", () => {
  it.each([
    "Pi is 3.14 today",
    "Update to v1.2.3 now",
    "Due 12.05.2026",
    "Time: 12:30",
    "Note: hi",
    "Tel: +1 555 0100",
    "Data: 5 GB left",
    "e.g. this, i.e. that",
    "Mr. Smith and Dr. Who",
    "No.5",
    "Order #A-123",
    "Привет, мир! Ваш заказ готов.",
    "مرحبا بالعالم",
    "你好，世界 🎉 谢谢。",
    "こんにちは 👩‍💻 🇺🇦",
    "add:: this",
    "Ratio 3:1, 50/50",
  ])("%j has no link", (value) => {
    expect(findLink(value)).toBeNull();
  });

  it("needs a word boundary before a scheme name", () => {
    expect(findLink("hotel:5stars")).toBeNull();
    expect(findLink("(tel:+15551234)")).toEqual({ kind: "scheme", match: "tel:" });
  });
});

describe("normalizeForLinkDetection", () => {
  it("applies NFKC, drops default-ignorable code points and maps look-alike full stops", () => {
    const value = "ｅｘ\u200Ca\u2060m\u034Fple\u3002c\uFE0Fo\u{E0041}m\uFF61";
    expect(normalizeForLinkDetection(value)).toBe("example.com.");
  });
});

describe("findLink is linear on hostile input", () => {
  it.each([
    ["1.", null],
    ["a.", null],
    [".:", null],
    ["1:", null],
    ["a@", null],
    ["a-", null],
    ["::1", null],
    ["[1:", null],
    ["xn--", null],
    ["http:", "scheme"],
    ["a://", "scheme"],
    ["a.com/(", "domain"],
    ["a.b@", "email"],
  ] as const)("completes on 100k characters of %j", (pattern, kind) => {
    const value = pattern.repeat(Math.ceil(100_000 / pattern.length));
    expect(findLink(value)?.kind ?? null).toBe(kind);
  });
});

describe("findLink properties", () => {
  it("finds every generated link", () => {
    fc.assert(
      fc.property(linkArbitrary, (link) => {
        expect(findLink(link)).not.toBeNull();
      }),
    );
  });

  it("finds every generated link after zero-width characters or look-alike dots", () => {
    fc.assert(
      fc.property(linkArbitrary.chain(hideLink), (hidden) => {
        expect(findLink(hidden)).not.toBeNull();
      }),
    );
  });

  it("finds nothing in generated prose", () => {
    fc.assert(
      fc.property(proseArbitrary, (prose) => {
        expect(findLink(prose)).toBeNull();
      }),
      {
        numRuns: 500,
      },
    );
  });
});
