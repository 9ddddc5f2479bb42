import { findWebUrls, type WebUrlSpan } from "../campaigns/link-detection.js";
import { renderTemplate, templatePlaceholders } from "../campaigns/template.js";

/** One URL of a rendered text replaced by a short link. */
export interface TrackedUrl {
  code: string;
  /** The URL as the rendered text had it (params filled in). */
  originalUrl: string;
}

/** A rendered text whose template URLs point at short links, and what each one stands for. */
export interface TrackedText {
  body: string;
  links: TrackedUrl[];
}

/** The short link of `code` under `baseUrl` (an origin, maybe with a path; no trailing slash). */
export const shortLink = (baseUrl: string, code: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/l/${code}`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const NOT_IN_A_LOCATION = /[\s\u0000-\u001f\u007f]/u;

/**
 * Whether a rendered URL may be stored and redirected to: an `http`/`https` URL that parses,
 * with no whitespace or control character (a param may bring either; such a URL is left as it
 * is, untracked, and never reaches a `Location` header).
 */
export function isTrackableUrl(url: string): boolean {
  if (NOT_IN_A_LOCATION.test(url) || !URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === "http:" || protocol === "https:";
}

/**
 * Whether the scheme and host of a template's URL are written out, with no placeholder in
 * them: only then is the site a short link leads to the template's, whatever the params hold
 * (`https://shop.example{{p}}` with `@evil.example` for `p` would lead elsewhere).
 */
function hasLiteralOrigin(templateUrl: string): boolean {
  const afterScheme = templateUrl.indexOf("://") + 3;
  const rest = templateUrl.slice(afterScheme);
  const end = rest.search(/[/?#\\]/);
  const origin = templateUrl.slice(0, afterScheme + (end === -1 ? rest.length : end));
  return !origin.includes("{{");
}

/** Templates whose spans are kept: a campaign sends its one template again and again. */
const KEPT_TEMPLATES = 256;
const spansByTemplate = new Map<string, readonly WebUrlSpan[]>();

/** `wholeSpans`, remembered per template (finding URLs costs some 60 µs; a lookup, nothing). */
function templateSpans(template: string): readonly WebUrlSpan[] {
  let spans = spansByTemplate.get(template);
  if (spans === undefined) {
    spans = wholeSpans(template);
    if (spansByTemplate.size >= KEPT_TEMPLATES) spansByTemplate.clear();
    spansByTemplate.set(template, spans);
  }
  return spans;
}

/**
 * The URL spans of `template`, each widened to whole placeholders: a span never cuts a
 * placeholder (valid or not) in two, so rendering the pieces apart renders the whole.
 */
function wholeSpans(template: string): WebUrlSpan[] {
  const placeholders = templatePlaceholders(template);
  const spans: WebUrlSpan[] = [];
  for (const found of findWebUrls(template)) {
    let { start, end } = found;
    for (const p of placeholders) {
      if (p.start < start && p.end > start) start = p.start;
      if (p.start < end && p.end > end) end = p.end;
    }
    const last = spans.at(-1);
    if (last !== undefined && start < last.end) last.end = Math.max(last.end, end);
    else spans.push({ start, end });
  }
  return spans;
}

/**
 * Renders `template` with `values`, every `http`/`https` URL of the template (found on the
 * template as written, so a URL that only a param brings is never rewritten) replaced by
 * `link(code)`; a URL whose scheme or host holds a placeholder stays as rendered, so a param
 * never decides where a short link leads. Text outside those URLs is exactly what `renderTemplate` makes of it, and
 * each replaced URL is kept with its code: replacing each short link by its original gives
 * `renderTemplate(template, values)` back.
 */
export function renderTracked(
  template: string,
  values: Record<string, string>,
  link: (code: string) => string,
  newCode: () => string,
): TrackedText {
  let body = "";
  const links: TrackedUrl[] = [];
  let from = 0;
  for (const span of templateSpans(template)) {
    const written = template.slice(span.start, span.end);
    const url = renderTemplate(written, values);
    body += renderTemplate(template.slice(from, span.start), values);
    if (hasLiteralOrigin(written) && isTrackableUrl(url)) {
      const code = newCode();
      links.push({ code, originalUrl: url });
      body += link(code);
    } else {
      body += url;
    }
    from = span.end;
  }
  return { body: body + renderTemplate(template.slice(from), values), links };
}
