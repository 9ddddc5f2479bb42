import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { glueLink, hideLink, linkArbitrary } from "../testing/arbitraries/links.js";
import { gluedProseArbitrary, proseArbitrary } from "../testing/arbitraries/prose.js";
import {
  findLink,
  KNOWN_SCHEMES,
  normalizeForLinkDetection,
  WORD_SCHEMES,
} from "./link-detection.js";

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

describe("findLink on a bare domain glued to an emoji or a symbol", () => {
  it.each([
    ["Visit example.com😀", "example.com"],
    ["see example.com✅", "example.com"],
    ["example.com❤️", "example.com"],
    ["x.io🙂", "x.io"],
    ["example.com→click", "example.com"],
    ["example.com|x", "example.com"],
    ["example.com+more", "example.com"],
    ["example.com~", "example.com"],
    ["example.com$", "example.com"],
    ["example.com👍🏽", "example.com"],
    ["example.com1️⃣", "example.com"],
    // NFKC turns these symbols into letters (TM, No) that would lengthen the TLD.
    ["example.com™", "example.com"],
    ["example.com№5", "example.com"],
    [
      "e\u0332x\u0332a\u0332m\u0332p\u0332l\u0332e\u0332.\u0332c\u0332o\u0332m\u0332",
      "example.com",
    ],
  ] as const)("%j holds the domain %j", (value, match) => {
    expect(findLink(value)).toEqual({ kind: "domain", match });
  });
});

describe("findLink on a link or scheme glued to letters of another script", () => {
  it.each([
    ["访问example.com获取验证码", "domain", "example.com"],
    ["見てexample.comで", "domain", "example.com"],
    ["请拨打tel:+14155550100", "scheme", "tel:"],
    ["звонитеtel:+1555", "scheme", "tel:"],
    ["Посетитеexample.comсегодня", "domain", "example.com"],
    ["пример.рф获取", "domain", "пример.рф"],
    ["见てuser@example.comで", "email", "user@example.com"],
    ["访问https://example.com获取", "scheme", "https:"],
    ["点击example。com领取", "domain", "example.com"],
    ["™tel:＋1555", "scheme", "tel:"],
  ] as const)("%j is a %s (%j)", (value, kind, match) => {
    expect(findLink(value)).toEqual({ kind, match });
  });
});

describe("findLink on a domain behind a leading dot or before a hyphen", () => {
  it.each([".example.com", "(.example.com)", "x .example.com", "example.com-", "example.com- x"])(
    "%j holds example.com",
    (value) => {
      expect(findLink(value)).toEqual({ kind: "domain", match: "example.com" });
    },
  );
});

describe("findLink on URI schemes", () => {
  it.each([
    "mms:+14155550100",
    "fax:+14155550100",
    "maps:?q=Berlin",
    "maps:Berlin",
    "fb:profile/1",
    "instagram:user",
    "spotify:track:4uLU6hMCjMI75M1A2tKUQC",
    "zoommtg:join?confno=1",
    "msteams:/l/chat/0/0",
    "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
    "otpauth:totp/ACME:bob",
    "bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
    "ms-settings:privacy",
    "web+mastodon:follow",
    "coap+tcp:x",
    "z39.50r:x",
    "urn:isbn:0451450523",
  ])("%j is a scheme", (value) => {
    expect(findLink(value)?.kind).toBe("scheme");
  });

  it.each([
    "tag:/x",
    "tag:example.org,2005:x@y",
    "maps:?q=x",
    "info:x=1",
    "message:%3Cid%3E",
    "news://host",
  ])("a word-like scheme with a URI after it, %j, is a scheme", (value) => {
    expect(findLink(value)?.kind).toBe("scheme");
  });

  it("lists well-formed names, none as both a known and a word-like scheme", () => {
    for (const name of [...KNOWN_SCHEMES, ...WORD_SCHEMES]) {
      expect(name).toMatch(/^[a-z][a-z0-9+.-]*[a-z0-9]$/);
    }
    expect([...WORD_SCHEMES].filter((name) => KNOWN_SCHEMES.has(name))).toEqual([]);
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
    "Note: see below",
    "Time: 10:30",
    "Info:Call us",
    "Tip:24/7",
    "Tag:#sale",
    "TV:on",
    "Session:2",
    "Acct:12345",
    "WiFi:Guest",
    "Line:3",
    "谢谢😀",
    "订单123已发货",
    "v1.2.3版本",
    "12.05.2026日",
    "价格$12.50",
    "合计¥1,200",
    "Привет👋",
    "10:30時",
    "x²+y²",
    "Straße™",
    "№5 e.g.谢谢",
    "1️⃣2️⃣3️⃣",
    "Mr. Smith😀 Dr. Who✅",
    "订单已发货。谢谢",
    "ありがとう。またね",
    "Ваш код:1234",
    "नमस्ते12.05.2026",
  ])("%j has no link", (value) => {
    expect(findLink(value)).toBeNull();
  });

  it("needs a word boundary before a scheme name; another script's letter is one", () => {
    expect(findLink("hotel:5stars")).toBeNull();
    expect(findLink("ñtel:5")).toBeNull();
    expect(findLink("1tel:5")).toBeNull();
    expect(findLink("(tel:+15551234)")).toEqual({ kind: "scheme", match: "tel:" });
  });
});

describe("findLink keeps the documented CJK full-stop trade-off, and no more", () => {
  it("refuses `。` between a word and a TLD, as docs/decisions.md says", () => {
    expect(findLink("欢迎光临。中国")).toEqual({ kind: "domain", match: "欢迎光临.中国" });
  });

  it("lets CJK prose pass when no TLD follows the full stop, glued or not", () => {
    for (const value of [
      "欢迎光临。谢谢",
      "订单已发货。请查收😀",
      "今天。明天",
      "注文。ありがとう",
    ]) {
      expect(findLink(value)).toBeNull();
    }
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
    ["a😀", null],
    ["例a", null],
    ["a\u0332", null],
    ["1\u20E3", null],
    [".a", null],
    ["-a-", null],
    ["tag:", null],
    ["tag:x", null],
    ["звонитеtel", null],
    ["™a", null],
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

  it("finds every generated link glued to emoji, symbols or another script, hidden or not", () => {
    fc.assert(
      fc.property(linkArbitrary.chain(glueLink), (glued) => {
        expect(findLink(glued)).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it("finds nothing in scripts, emoji and numbers glued without spaces", () => {
    fc.assert(
      fc.property(gluedProseArbitrary, (prose) => {
        expect(findLink(prose)).toBeNull();
      }),
      { numRuns: 500 },
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
