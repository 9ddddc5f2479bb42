import { findWebUrls, type WebUrlSpan } from "../campaigns/link-detection.js";
import { renderTemplate, templatePlaceholders } from "../campaigns/template.js";
import { parseUrl } from "../support/url.js";
import { hasRedirectableShape } from "./redirect-shape.js";

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

/**
 * Whether a rendered URL may be stored and redirected to: an `http`/`https` URL that parses,
 * with no whitespace or control character (a param may bring either; such a URL is left as it
 * is, untracked, and never reaches a `Location` header).
 */
export function isTrackableUrl(url: string): boolean {
  const parsed = hasRedirectableShape(url) ? parseUrl(url) : null;
  return parsed?.protocol === "http:" || parsed?.protocol === "https:";
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
const spansByTemplate = new Map<string, readonly TemplateSpan[]>();

/** `wholeSpans`, remembered per template (finding URLs costs some 60 µs; a lookup, nothing). */
function templateSpans(template: string): readonly TemplateSpan[] {
  let spans = spansByTemplate.get(template);
  if (spans === undefined) {
    spans = wholeSpans(template);
    if (spansByTemplate.size >= KEPT_TEMPLATES) spansByTemplate.clear();
    spansByTemplate.set(template, spans);
  }
  return spans;
}

/** A span, and whether its URL may be tracked at all. */
interface TemplateSpan extends WebUrlSpan {
  /**
   * `false` when the URL goes on past where it was found (into `:port`, `user@`, a longer host):
   * replacing the part found would glue the rest to the short link.
   */
  whole: boolean;
}

/**
 * What may follow a URL found in a template only if the URL does not end there: a port or
 * password (`:`), a user (`@`), a placeholder, an opening bracket (its closing one may come
 * with a param), more of the host or the path (a letter, a digit, punctuation before one). A
 * short link followed by any of these would run on into it.
 */
const CONTINUES = /^(?:[\p{L}\p{N}:@{/_~%=&+([-]|[.?#,;!*$'][\p{L}\p{N}])/u;

/**
 * What may come right before a URL found in a template only if something else runs on into it:
 * a letter, a digit, a URL's own characters, a placeholder (whose value is not known).
 */
const RUNS_ON = /(?:[\p{L}\p{N}/@:._~%=&+#?-]|\}\})$/u;

/**
 * The URL spans of `template`, each widened to whole placeholders: a span never cuts a
 * placeholder (valid or not) in two, so rendering the pieces apart renders the whole. URLs are
 * found with every placeholder read as letters (same length, so places do not move): a
 * placeholder inside or right after a URL (`https://shop.example/order/{{ order_id }}`) is
 * part of it, as its value will be.
 */
function wholeSpans(template: string): TemplateSpan[] {
  const placeholders = templatePlaceholders(template);
  let lettered = template;
  for (const p of placeholders) {
    lettered = lettered.slice(0, p.start) + "a".repeat(p.end - p.start) + lettered.slice(p.end);
  }
  const spans: TemplateSpan[] = [];
  for (const found of findWebUrls(lettered)) {
    let { start, end } = found;
    for (const p of placeholders) {
      if (p.start < start && p.end > start) start = p.start;
      if (p.start < end && p.end > end) end = p.end;
    }
    const whole = !CONTINUES.test(template.slice(end)) && !RUNS_ON.test(template.slice(0, start));
    const last = spans.at(-1);
    if (last !== undefined && start < last.end) {
      last.end = Math.max(last.end, end);
      last.whole &&= whole;
    } else {
      spans.push({ start, end, whole });
    }
  }
  return spans;
}

/**
 * Renders `template` with `values`, every `http`/`https` URL of the template (found on the
 * template as written, so a URL that only a param brings is never rewritten) replaced by
 * `link(code)`; a URL whose scheme or host holds a placeholder stays as rendered, so a param
 * never decides where a short link leads, and so does one that runs on into the text around it
 * (a port or a user past where it was found; a placeholder or a word written against it). Text outside those URLs is exactly what `renderTemplate` makes of it, and
 * each replaced URL is kept with its code: replacing each short link by its original gives
 * `renderTemplate(template, values)` back.
 */
export function renderTracked(
  template: string,
  values: Record<string, string>,
  link: (code: string) => string,
  newCode: () => string,
): TrackedText {
  /** The rendered text in pieces: plain text, and URLs each with the short link it may take. */
  const pieces: Array<{ text: string; tracked?: (TrackedUrl & { short: string }) | undefined }> =
    [];
  let from = 0;
  for (const span of templateSpans(template)) {
    const written = template.slice(span.start, span.end);
    const url = renderTemplate(written, values);
    pieces.push({ text: renderTemplate(template.slice(from, span.start), values) });
    if (span.whole && hasLiteralOrigin(written) && isTrackableUrl(url)) {
      const code = newCode();
      pieces.push({ text: url, tracked: { code, originalUrl: url, short: link(code) } });
    } else {
      pieces.push({ text: url });
    }
    from = span.end;
  }
  pieces.push({ text: renderTemplate(template.slice(from), values) });
  // What the params put around a URL may still run on into its short link (a quote, a closing
  // bracket): a short link that a reader's phone would not find whole stays the URL it was.
  // Each round leaves at least one more URL as it was, so there are at most as many as links.
  for (;;) {
    const body = pieces.map((piece) => piece.tracked?.short ?? piece.text).join("");
    const found = new Set(
      findWebUrls(body).map((span) => `${span.start}:${body.slice(span.start, span.end)}`),
    );
    let at = 0;
    let dropped = false;
    for (const piece of pieces) {
      const shown = piece.tracked?.short ?? piece.text;
      if (piece.tracked !== undefined && !found.has(`${at}:${shown}`)) {
        piece.tracked = undefined;
        dropped = true;
      }
      at += shown.length;
    }
    if (!dropped) {
      const links = pieces.flatMap((piece) =>
        piece.tracked === undefined
          ? []
          : [{ code: piece.tracked.code, originalUrl: piece.tracked.originalUrl }],
      );
      return { body, links };
    }
  }
}
