import { err, ok, type Result } from "neverthrow";
import type { Issue } from "../errors.js";

/** The most distinct placeholders one campaign template may use. */
export const MAX_PLACEHOLDERS = 50;

interface Placeholder {
  /** The trimmed text between the braces; a valid name only when `valid`. */
  name: string;
  valid: boolean;
  start: number;
  end: number;
}

interface TemplateScan {
  placeholders: Placeholder[];
  /** Where an opening `{{` without a closing `}}` starts, or `null`. */
  unclosedAt: number | null;
}

const isSpace = (code: number): boolean => code === 0x20 || code === 0x09;
const isNameStart = (code: number): boolean =>
  (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
const isNamePart = (code: number): boolean => isNameStart(code) || (code >= 0x30 && code <= 0x39);

function isPlaceholderName(text: string): boolean {
  if (text.length === 0 || !isNameStart(text.charCodeAt(0))) return false;
  for (let i = 1; i < text.length; i += 1) {
    if (!isNamePart(text.charCodeAt(i))) return false;
  }
  return true;
}

function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/**
 * One left-to-right pass with `indexOf` and no regular expression, so the cost is linear in
 * the template's length whatever it contains.
 */
function scanTemplate(template: string): TemplateScan {
  const placeholders: Placeholder[] = [];
  let from = 0;
  for (;;) {
    const open = template.indexOf("{{", from);
    if (open === -1) return { placeholders, unclosedAt: null };
    const close = template.indexOf("}}", open + 2);
    if (close === -1) return { placeholders, unclosedAt: open };
    const name = trimSpaces(template.slice(open + 2, close));
    placeholders.push({ name, valid: isPlaceholderName(name), start: open, end: close + 2 });
    from = close + 2;
  }
}

/** Where each placeholder of a template lies, valid or not, as rendering reads them. */
export const templatePlaceholders = (template: string): Array<{ start: number; end: number }> =>
  scanTemplate(template).placeholders.map(({ start, end }) => ({ start, end }));

const shown = (text: string): string =>
  JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** The distinct placeholder names of a template in order of first use, or every problem in it. */
export function parseTemplate(template: string): Result<string[], Issue[]> {
  const { placeholders, unclosedAt } = scanTemplate(template);
  const issues: Issue[] = [];
  const names: string[] = [];
  const seen = new Set<string>();
  for (const placeholder of placeholders) {
    if (!placeholder.valid) {
      issues.push({
        path: "template",
        rule: "placeholder_name",
        message: `The placeholder at position ${placeholder.start} has the invalid name ${shown(placeholder.name)}; a name starts with a letter or underscore and continues with letters, digits or underscores.`,
      });
    } else if (!seen.has(placeholder.name)) {
      seen.add(placeholder.name);
      names.push(placeholder.name);
    }
  }
  if (unclosedAt !== null) {
    issues.push({
      path: "template",
      rule: "placeholder_unclosed",
      message: `The "{{" at position ${unclosedAt} is never closed with "}}".`,
    });
  }
  if (names.length > MAX_PLACEHOLDERS) {
    issues.push({
      path: "template",
      rule: "max_placeholders",
      message: `The template uses ${names.length} distinct placeholders; at most ${MAX_PLACEHOLDERS} are allowed.`,
    });
  }
  return issues.length > 0 ? err(issues) : ok(names);
}

/**
 * Replaces every valid placeholder with its value in one pass (values are never re-scanned,
 * so a value containing `{{x}}` stays literal). A placeholder without a value is left as written.
 */
export function renderTemplate(template: string, values: Record<string, string>): string {
  const { placeholders } = scanTemplate(template);
  let rendered = "";
  let from = 0;
  for (const placeholder of placeholders) {
    if (!placeholder.valid || !Object.hasOwn(values, placeholder.name)) continue;
    rendered += template.slice(from, placeholder.start) + (values[placeholder.name] ?? "");
    from = placeholder.end;
  }
  return rendered + template.slice(from);
}
