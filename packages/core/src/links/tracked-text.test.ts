import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findWebUrls } from "../campaigns/link-detection.js";
import { renderTemplate } from "../campaigns/template.js";
import { domainArbitrary } from "../testing/arbitraries/links.js";
import { isLinkCode, newLinkCode } from "./link-code.js";
import { isTrackableUrl, renderTracked, shortLink } from "./tracked-text.js";

const BASE = "https://t.example";
const link = (code: string) => shortLink(BASE, code);

/** The rendered text back from a tracked one: each short link replaced by its original, in order. */
function untracked(body: string, links: ReadonlyArray<{ code: string; originalUrl: string }>) {
  let text = body;
  let from = 0;
  for (const { code, originalUrl } of links) {
    const at = text.indexOf(link(code), from);
    expect(at).toBeGreaterThanOrEqual(from);
    text = text.slice(0, at) + originalUrl + text.slice(at + link(code).length);
    from = at + originalUrl.length;
  }
  return text;
}

const track = (template: string, values: Record<string, string>) =>
  renderTracked(template, values, link, newLinkCode);

const webUrl = fc
  .tuple(
    fc.constantFrom("http", "https", "HTTPS"),
    domainArbitrary,
    fc.option(fc.integer({ min: 1, max: 65_535 })),
    fc.array(fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}$/), { maxLength: 3 }),
    fc.option(fc.stringMatching(/^[A-Za-z0-9=&_-]{0,12}$/)),
  )
  .map(
    ([scheme, host, port, path, query]) =>
      `${scheme}://${host}${port === null ? "" : `:${port}`}/${path.join("/")}${query === null ? "" : `?${query}`}`,
  );
/** URLs whose every character linkify-it keeps (no trailing punctuation it would leave out). */
const plainUrl = fc
  .tuple(
    fc.constantFrom("http", "https"),
    domainArbitrary,
    fc.array(fc.stringMatching(/^[A-Za-z0-9_~-]{1,8}$/), { maxLength: 3 }),
    fc.option(fc.stringMatching(/^[a-z0-9]{1,6}=[A-Za-z0-9]{1,6}$/)),
  )
  .map(
    ([scheme, host, path, query]) =>
      `${scheme}://${host}/${path.join("/")}${query === null ? "" : `?${query}`}`,
  );
const NAMES = ["order", "name", "p_1"];
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }) },
  { weight: 3, arbitrary: webUrl },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((name) => `{{${name}}}`) },
  { weight: 1, arbitrary: fc.constantFrom("{{", "}}", "{{ bad name }}", " ", "\n", ".", ")", "/") },
  { weight: 1, arbitrary: domainArbitrary },
);
const template = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(""));
const values = fc.record(
  Object.fromEntries(
    NAMES.map((name) => [name, fc.oneof(fc.string({ maxLength: 10 }), webUrl)]),
  ) as Record<string, fc.Arbitrary<string>>,
);

describe("tracked text (issue 35 item 2)", () => {
  it("any template with any URLs round-trips: the originals come back, text outside them is unchanged", () => {
    fc.assert(
      fc.property(template, values, (text, params) => {
        const tracked = track(text, params);
        expect(untracked(tracked.body, tracked.links)).toBe(renderTemplate(text, params));
        for (const stored of tracked.links) {
          expect(isLinkCode(stored.code)).toBe(true);
          expect(isTrackableUrl(stored.originalUrl)).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("every http(s) URL written in a template is tracked, with the params in it filled in", () => {
    fc.assert(
      fc.property(fc.array(plainUrl, { minLength: 1, maxLength: 4 }), (urls) => {
        const tracked = track(`Hi ${urls.join(" and ")} bye`, {});
        expect(tracked.links.map((l) => l.originalUrl)).toEqual(urls);
        expect(tracked.body.startsWith("Hi https://t.example/l/")).toBe(true);
        expect(tracked.body.endsWith(" bye")).toBe(true);
      }),
      { numRuns: 300 },
    );
    const tracked = track("Track https://shop.example/o/{{order}}?ref=sms now", { order: "A-1" });
    expect(tracked.links.map((l) => l.originalUrl)).toEqual(["https://shop.example/o/A-1?ref=sms"]);
    expect(tracked.body).toBe(`Track ${link(tracked.links[0]?.code ?? "")} now`);
  });

  it("a URL that only a param brings, bare domains, e-mail addresses, IPs and other schemes stay", () => {
    const text = "See {{url}}, example.com, ada@example.com, 10.0.0.1, ftp://files.example/x.";
    const params = { url: "https://evil.example/phish" };
    const tracked = track(text, params);
    expect(tracked.links).toEqual([]);
    expect(tracked.body).toBe(renderTemplate(text, params));
  });

  it("a param that makes a URL untrackable (a space, a line break) leaves that URL as rendered", () => {
    const text = "Go https://shop.example/{{path}} now";
    for (const path of ["a b", "x\r\nLocation: https://evil.example", "\u0000"]) {
      const tracked = track(text, { path });
      expect(tracked.links).toEqual([]);
      expect(tracked.body).toBe(renderTemplate(text, { path }));
    }
  });

  it("a URL runs on into the placeholder right after it; one that goes on past where it was found stays untracked", () => {
    const order = track("Your order: https://shop.example/order/{{ order_id }}", {
      order_id: "123",
    });
    expect(order.links.map((l) => l.originalUrl)).toEqual(["https://shop.example/order/123"]);
    expect(order.body).toBe(`Your order: ${link(order.links[0]?.code ?? "")}`);
    for (const [text, params] of [
      ["https://shop.example:{{port}}/", { port: "8080" }],
      ["https://shop.example{{p}}", { p: "@evil.example" }],
      ["https://shop.example.{{tld}}/x", { tld: "evil" }],
      ["https://user:pass@shop.example/x", {}],
    ] as const) {
      const tracked = track(text, params);
      expect(tracked.links, text).toEqual([]);
      expect(tracked.body).toBe(renderTemplate(text, params));
    }
  });

  it("every short link stands whole in the text: nothing a param brings is glued to it", () => {
    fc.assert(
      fc.property(template, values, (text, params) => {
        const tracked = track(text, params);
        for (const { code } of tracked.links) {
          const short = link(code);
          const at = tracked.body.indexOf(short);
          const found = findWebUrls(tracked.body).find((span) => span.start === at);
          expect(found && tracked.body.slice(found.start, found.end), text).toBe(short);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("a param in a URL's scheme or host never picks where a short link leads", () => {
    for (const text of [
      "Go https://shop.example{{p}}/x now",
      "Go https://{{p}}.example/x now",
      "Go https://shop.example:{{p}}/x now",
      "Go https://shop.example/{{p}} now",
      "Go https://{{p}} now",
    ]) {
      for (const p of ["@evil.example", "@evil.example/x", ".evil.example", "evil.example"]) {
        const tracked = track(text, { p });
        expect(untracked(tracked.body, tracked.links)).toBe(renderTemplate(text, { p }));
        for (const stored of tracked.links) {
          expect(new URL(stored.originalUrl).host, `${text} with ${p}`).toBe("shop.example");
        }
      }
    }
  });

  it("no code collides in 100,000 draws, and every code is 12 base62 characters", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i += 1) {
      const code = newLinkCode();
      expect(seen.has(code)).toBe(false);
      seen.add(code);
    }
    expect([...seen].every(isLinkCode)).toBe(true);
    expect(seen.size).toBe(100_000);
  });
});
