import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Issue } from "../errors.js";
import type { Category, Channel } from "../ports.js";
import {
  embedGluedInProse,
  embedInProse,
  hideLink,
  invalidParamsFor,
  linkArbitrary,
  validParamsFor,
} from "../testing/arbitraries/params.js";
import { type ParamsCampaign, validateParams } from "./viber-params.js";

const campaign = (channel: Channel, category: Category, template?: string): ParamsCampaign => ({
  channel,
  category,
  template: template ?? (category === "otp" ? "Your code is {{pin}}" : "Hi {{name}}, see {{note}}"),
});

const viberTransactional = campaign("viber", "transactional");
const viberPromotional = campaign("viber", "promotional");
const viberOtp = campaign("viber", "otp", "Hi {{name}}, your code is {{ pin }}");
const smsTransactional = campaign("sms", "transactional");
const smsOtp = campaign("sms", "otp");

const ALL_CAMPAIGNS = (["viber", "sms"] as const).flatMap((channel) =>
  (["otp", "transactional", "promotional"] as const).map((category) =>
    campaign(channel, category, category === "otp" ? "Hi {{name}}, code {{pin}}" : undefined),
  ),
);

const issuesOf = (c: ParamsCampaign, params: unknown): Issue[] =>
  validateParams(c, params).match(
    () => [],
    (issues) => issues,
  );
const brief = (issues: Issue[]) => issues.map(({ path, rule }) => ({ path, rule }));

describe("validateParams rules", () => {
  it("rule params_optional: absent params are an empty object", () => {
    expect(
      validateParams(
        campaign("viber", "transactional", "No placeholders"),
        undefined,
      )._unsafeUnwrap(),
    ).toEqual({});
  });

  it("rule type (params): params must be a plain object", () => {
    for (const params of [null, "x", 3, ["a"], new Date()]) {
      expect(brief(issuesOf(viberTransactional, params))).toEqual([
        { path: "params", rule: "type" },
      ]);
    }
  });

  it("rule required: every template placeholder needs a value", () => {
    const issues = issuesOf(viberTransactional, { name: "Ana" });
    expect(brief(issues)).toEqual([{ path: "params.note", rule: "required" }]);
    expect(issues[0]?.message).toMatch(/"note".*required/);
  });

  it("rule required: an inherited property is not a value", () => {
    const template = campaign("sms", "transactional", "{{constructor}} {{toString}}");
    expect(brief(issuesOf(template, {}))).toEqual([
      { path: "params.constructor", rule: "required" },
      { path: "params.toString", rule: "required" },
    ]);
  });

  it("rule unknown_param: a param the template does not use is refused", () => {
    const issues = issuesOf(viberTransactional, { name: "Ana", note: "hi", extra: "x" });
    expect(brief(issues)).toEqual([{ path: "params.extra", rule: "unknown_param" }]);
    expect(issues[0]?.message).toMatch(/"extra".*not used/);
  });

  it("rule type: values are strings; finite numbers become strings", () => {
    expect(validateParams(viberTransactional, { name: 42, note: 1.5 })._unsafeUnwrap()).toEqual({
      name: "42",
      note: "1.5",
    });
  });

  it("rule type: null, booleans, objects, arrays and non-finite numbers are refused", () => {
    for (const value of [
      null,
      true,
      false,
      { a: 1 },
      ["a"],
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      const issues = issuesOf(viberTransactional, { name: value, note: "x" });
      expect(brief(issues)).toEqual([{ path: "params.name", rule: "type" }]);
      expect(issues[0]?.message).toMatch(/"name" must be a string or a finite number/);
    }
  });

  it("rule max_length: a Viber value may have 125 code points, not 126", () => {
    expect(validateParams(viberPromotional, { name: "a".repeat(125), note: "x" }).isOk()).toBe(
      true,
    );
    const issues = issuesOf(viberPromotional, { name: "a".repeat(126), note: "x" });
    expect(brief(issues)).toEqual([{ path: "params.name", rule: "max_length" }]);
    expect(issues[0]?.message).toMatch(/"name" is 126 characters long; Viber allows at most 125/);
  });

  it("rule max_length: astral characters count as one code point each", () => {
    expect(validateParams(viberPromotional, { name: "😀".repeat(125), note: "x" }).isOk()).toBe(
      true,
    );
    expect(brief(issuesOf(viberPromotional, { name: "😀".repeat(126), note: "x" }))).toEqual([
      { path: "params.name", rule: "max_length" },
    ]);
  });

  it("rule max_length: SMS campaigns have no length limit", () => {
    expect(validateParams(smsTransactional, { name: "a".repeat(1000), note: "x" }).isOk()).toBe(
      true,
    );
  });

  it("rule no_links: Viber Transactional and OTP values may not carry a link, naming its kind", () => {
    const transactional = issuesOf(viberTransactional, { name: "Ana", note: "see example.com" });
    expect(brief(transactional)).toEqual([{ path: "params.note", rule: "no_links" }]);
    expect(transactional[0]?.message).toMatch(/"note" contains a domain name \("example\.com"\)/);
    const otp = issuesOf(viberOtp, { name: "tel:+15551234", pin: "1234" });
    expect(brief(otp)).toEqual([{ path: "params.name", rule: "no_links" }]);
    expect(otp[0]?.message).toMatch(/a URI scheme/);
  });

  it("rule no_links: Promotional Viber and SMS campaigns allow links", () => {
    const params = { name: "Ana", note: "https://example.com/sale" };
    expect(validateParams(viberPromotional, params).isOk()).toBe(true);
    expect(validateParams(smsTransactional, params).isOk()).toBe(true);
    expect(validateParams(smsOtp, { pin: "bob@example.com" }).isOk()).toBe(true);
  });

  it("rule no_links: detection reads a normalized copy; the value itself is never altered", () => {
    const value = "exa\u200Bmple。com";
    expect(issuesOf(viberTransactional, { name: "Ana", note: value })[0]?.rule).toBe("no_links");
    expect(
      validateParams(viberPromotional, { name: "Ana", note: value })._unsafeUnwrap().note,
    ).toBe(value);
  });

  it("rule pin_required: an OTP pin must be present, non-empty and not null (any channel)", () => {
    for (const otp of [viberOtp, campaign("sms", "otp", "Hi {{name}}, your code is {{pin}}")]) {
      for (const params of [
        { name: "A" },
        { name: "A", pin: "" },
        { name: "A", pin: "  " },
        { name: "A", pin: null },
      ]) {
        const issues = issuesOf(otp, params);
        expect(brief(issues)).toEqual([{ path: "params.pin", rule: "pin_required" }]);
        expect(issues[0]?.message).toMatch(/"pin" is required for OTP campaigns/);
      }
    }
    expect(validateParams(viberOtp, { name: "A", pin: 123456 })._unsafeUnwrap().pin).toBe("123456");
  });

  it("rule pin_required: a pin of only invisible characters is empty", () => {
    for (const pin of ["\u200B", "\uFEFF", "\u00A0", "\u2060\u3164", "\u00AD\u200D ", "\u2800"]) {
      expect(brief(issuesOf(viberOtp, { name: "A", pin }))).toEqual([
        { path: "params.pin", rule: "pin_required" },
      ]);
    }
    expect(validateParams(viberOtp, { name: "A", pin: "\u200B1234" }).isOk()).toBe(true);
  });

  it("rule no_links: a link glued to an emoji, a symbol or another script is refused", () => {
    for (const note of [
      "Visit example.com😀",
      "example.com|x",
      "访问example.com获取验证码",
      "请拨打tel:+14155550100",
      ".example.com",
      "fb:profile",
    ]) {
      expect(brief(issuesOf(viberTransactional, { name: "Ana", note }))).toEqual([
        { path: "params.note", rule: "no_links" },
      ]);
    }
  });

  it("rule pin_required: an OTP needs a pin even when its template forgot {{pin}}", () => {
    const otp = campaign("sms", "otp", "Your code follows");
    expect(brief(issuesOf(otp, {}))).toEqual([{ path: "params.pin", rule: "pin_required" }]);
    expect(validateParams(otp, { pin: "9" })._unsafeUnwrap()).toEqual({ pin: "9" });
  });

  it("lists every problem, each at params.<name> with its rule", () => {
    const otp = campaign("viber", "otp", "{{a}} {{b}} {{c}} {{d}} {{pin}}");
    const issues = issuesOf(otp, { b: null, c: `${"x".repeat(120)} 10.0.0.1`, d: "ok", zz: 1 });
    expect(brief(issues)).toEqual([
      { path: "params.a", rule: "required" },
      { path: "params.b", rule: "type" },
      { path: "params.c", rule: "max_length" },
      { path: "params.c", rule: "no_links" },
      { path: "params.pin", rule: "pin_required" },
      { path: "params.zz", rule: "unknown_param" },
    ]);
  });

  it("keeps `__proto__` an ordinary key in and out", () => {
    const c = campaign("sms", "transactional", "{{__proto__}}");
    const result = validateParams(c, JSON.parse('{"__proto__": "x"}'))._unsafeUnwrap();
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it("passes on the issues of a broken template at path template", () => {
    expect(brief(issuesOf(campaign("sms", "transactional", "{{open"), {}))).toEqual([
      { path: "template", rule: "placeholder_unclosed" },
    ]);
  });
});

describe("validateParams properties", () => {
  it("generated valid params (link-free prose in many scripts, numbers) always pass", () => {
    for (const c of ALL_CAMPAIGNS) {
      fc.assert(
        fc.property(validParamsFor(c), (params) => {
          expect(validateParams(c, params).isOk()).toBe(true);
        }),
        { numRuns: 150 },
      );
    }
  });

  it("generated invalid params always give at least one issue, each under params", () => {
    for (const c of ALL_CAMPAIGNS) {
      fc.assert(
        fc.property(invalidParamsFor(c), (params) => {
          const issues = issuesOf(c, params);
          expect(issues.length).toBeGreaterThan(0);
          for (const issue of issues) expect(issue.path).toMatch(/^params(\.|$)/);
        }),
        { numRuns: 150 },
      );
    }
  });

  it("a link anywhere in prose, plain or hidden, is refused for Transactional/OTP and allowed for Promotional within 125", () => {
    const link = fc.oneof(linkArbitrary, linkArbitrary.chain(hideLink));
    fc.assert(
      fc.property(embedInProse(link), (value) => {
        const transactional = issuesOf(viberTransactional, { name: value, note: "x" });
        const otp = issuesOf(viberOtp, { name: value, pin: "1" });
        for (const issues of [transactional, otp]) {
          expect(issues.map((i) => i.rule)).toContain("no_links");
        }
        const length = [...value].length;
        const promotional = issuesOf(viberPromotional, { name: "x", note: value }).map(
          (i) => i.rule,
        );
        expect(promotional).toEqual(length > 125 ? ["max_length"] : []);
      }),
      { numRuns: 300 },
    );
  });

  it("a link glued to emoji, symbols or another script in prose, plain or hidden, is refused for Transactional/OTP and allowed for Promotional within 125", () => {
    fc.assert(
      fc.property(embedGluedInProse(linkArbitrary), (value) => {
        expect(
          issuesOf(viberTransactional, { name: value, note: "x" }).map((i) => i.rule),
        ).toContain("no_links");
        expect(issuesOf(viberOtp, { name: value, pin: "1" }).map((i) => i.rule)).toContain(
          "no_links",
        );
        const promotional = issuesOf(viberPromotional, { name: "x", note: value }).map(
          (i) => i.rule,
        );
        expect(promotional).toEqual([...value].length > 125 ? ["max_length"] : []);
      }),
      { numRuns: 300 },
    );
  });

  it("values of 125 code points pass and of 126 fail on Viber, astral characters included", () => {
    const unit = fc.constantFrom("a", "я", "中", " ", "😀", "👍", "🇺", "𝒳");
    const ofLength = (n: number) =>
      fc.array(unit, { minLength: n, maxLength: n }).map((units) => units.join(""));
    fc.assert(
      fc.property(ofLength(125), ofLength(126), (fits, tooLong) => {
        expect(validateParams(viberPromotional, { name: fits, note: "x" }).isOk()).toBe(true);
        expect(
          issuesOf(viberTransactional, { name: tooLong, note: "x" }).map((i) => i.rule),
        ).toEqual(["max_length"]);
        expect(validateParams(smsTransactional, { name: tooLong, note: "x" }).isOk()).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("10,000 worst-case 125-character values of `.:/0-9a-z@[]` validate (linear-time detection)", () => {
    const unit = fc.constantFrom(...".:/0123456789abcdefghijklmnopqrstuvwxyz@[]");
    const values = fc.sample(fc.string({ unit, minLength: 125, maxLength: 125 }), {
      numRuns: 10_000,
      seed: 20_260_512,
    });
    let refused = 0;
    for (const value of values) {
      const rules = issuesOf(viberOtp, { name: value, pin: "1" }).map((i) => i.rule);
      expect(rules.every((rule) => rule === "no_links")).toBe(true);
      if (rules.length > 0) refused += 1;
    }
    expect(refused).toBeGreaterThan(0);
  });
});
