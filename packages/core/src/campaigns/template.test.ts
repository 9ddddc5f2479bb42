import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_PLACEHOLDERS, parseTemplate, renderTemplate } from "./template.js";

const rules = (template: string): Array<string | undefined> =>
  parseTemplate(template).match(
    () => [],
    (issues) => issues.map((issue) => issue.rule),
  );

describe("parseTemplate", () => {
  it("lists each placeholder once, in order of first appearance", () => {
    const parsed = parseTemplate("Hi {{name}}, order {{order_id}} for {{name}} ({{_x9}})");
    expect(parsed._unsafeUnwrap()).toEqual(["name", "order_id", "_x9"]);
  });

  it("allows spaces inside the braces", () => {
    expect(parseTemplate("Code: {{ pin }} / {{\tname}}")._unsafeUnwrap()).toEqual(["pin", "name"]);
  });

  it("accepts a template without placeholders and leaves single braces alone", () => {
    expect(parseTemplate("Thanks {friend}! } {")._unsafeUnwrap()).toEqual([]);
  });

  it("refuses an unclosed {{ at path template", () => {
    const issues = parseTemplate("Hello {{name")._unsafeUnwrapErr();
    expect(issues).toEqual([
      expect.objectContaining({ path: "template", rule: "placeholder_unclosed" }),
    ]);
  });

  it("refuses a bad placeholder name (digit first, dash, empty, non-ASCII)", () => {
    for (const bad of ["{{1st}}", "{{first-name}}", "{{}}", "{{ }}", "{{имя}}", "{{a b}}"]) {
      expect(rules(`x ${bad} y`), bad).toEqual(["placeholder_name"]);
    }
  });

  it(`allows ${MAX_PLACEHOLDERS} distinct placeholders and refuses one more`, () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `{{p${i}}}`).join(" ");
    expect(parseTemplate(`${names(MAX_PLACEHOLDERS)} {{p0}}`)._unsafeUnwrap()).toHaveLength(50);
    expect(rules(names(MAX_PLACEHOLDERS + 1))).toEqual(["max_placeholders"]);
  });

  it("lists every problem, not just the first", () => {
    expect(rules("{{ok}} {{1bad}} {{also bad}} {{open")).toEqual([
      "placeholder_name",
      "placeholder_name",
      "placeholder_unclosed",
    ]);
  });

  it("scans hostile templates in linear time (completes on 200k characters)", () => {
    expect(rules("{{".repeat(100_000))).toEqual(["placeholder_unclosed"]);
    expect(rules("{{a}".repeat(50_000))).toEqual(["placeholder_unclosed"]);
    expect(parseTemplate(`${"{{ ".repeat(50_000)}a}}`).isErr()).toBe(true);
  });

  it("finds exactly the names a generated template was built from", () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/);
    const text = fc
      .string()
      .filter((s) => !s.includes("{{") && !s.includes("}") && !s.endsWith("{"));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, name), { maxLength: 10 }), text, (parts, tail) => {
        const template = parts.map(([t, n]) => `${t}{{${n}}}`).join("") + tail;
        expect(parseTemplate(template)._unsafeUnwrap()).toEqual([
          ...new Set(parts.map(([, n]) => n)),
        ]);
      }),
    );
  });
});

describe("renderTemplate", () => {
  it("replaces every placeholder, repeated and spaced ones included", () => {
    const rendered = renderTemplate("Hi {{name}}! Code {{ pin }}. Bye {{name}}.", {
      name: "Ana",
      pin: "1234",
    });
    expect(rendered).toBe("Hi Ana! Code 1234. Bye Ana.");
  });

  it("never re-reads a value, so a value that looks like a placeholder stays literal", () => {
    expect(renderTemplate("{{a}} {{b}}", { a: "{{b}}", b: "x" })).toBe("{{b}} x");
  });

  it("leaves a placeholder without an own value as written (no prototype lookups)", () => {
    expect(renderTemplate("{{constructor}} {{missing}}", {})).toBe("{{constructor}} {{missing}}");
  });

  it("renders `__proto__` as an ordinary placeholder", () => {
    const values = Object.fromEntries([["__proto__", "safe"]]);
    expect(renderTemplate("x {{__proto__}}", values)).toBe("x safe");
  });
});
