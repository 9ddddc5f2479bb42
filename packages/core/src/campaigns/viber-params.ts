import { err, ok, type Result } from "neverthrow";
import type { Issue } from "../errors.js";
import type { CampaignRecord } from "../ports.js";
import { codePointLength } from "../support/text.js";
import type { LinkKind } from "./found-link.js";
import { findLink } from "./link-detection.js";
import { parseTemplate } from "./template.js";

/** Viber's limit on one parameter value, counted in Unicode code points. */
export const VIBER_MAX_PARAM_LENGTH = 125;

export type ParamsCampaign = Pick<CampaignRecord, "channel" | "category" | "template">;

const LINK_NAMES: Record<LinkKind, string> = {
  url: "a URL",
  domain: "a domain name",
  email: "an email address",
  ip: "an IP address",
  scheme: "a URI scheme",
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return "a number that is not finite";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

// Whitespace, default-ignorable (zero-width, BOM, soft hyphen, Hangul filler), control and
// format code points and the braille blank: a pin made only of these shows nothing.
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}\p{C}\u2800]/gu;
const isBlank = (text: string): boolean => text.replace(INVISIBLE, "") === "";

const shown = (text: string): string =>
  JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** The problems of one present value, or its text when it has none. */
function checkValue(
  campaign: ParamsCampaign,
  name: string,
  raw: unknown,
): { text: string | null; issues: Issue[] } {
  const path = `params.${name}`;
  const isOtpPin = campaign.category === "otp" && name === "pin";
  if (isOtpPin && (raw === null || (typeof raw === "string" && isBlank(raw)))) {
    const message = `Parameter "pin" is required for OTP campaigns and must not be null, empty or only invisible characters.`;
    return { text: null, issues: [{ path, rule: "pin_required", message }] };
  }
  if (typeof raw !== "string" && !(typeof raw === "number" && Number.isFinite(raw))) {
    const message = `Parameter "${name}" must be a string or a finite number, not ${describe(raw)}.`;
    return { text: null, issues: [{ path, rule: "type", message }] };
  }
  const text = typeof raw === "string" ? raw : String(raw);
  const issues: Issue[] = [];
  if (campaign.channel === "viber") {
    const length = codePointLength(text);
    if (length > VIBER_MAX_PARAM_LENGTH) {
      issues.push({
        path,
        rule: "max_length",
        message: `Parameter "${name}" is ${length} characters long; Viber allows at most ${VIBER_MAX_PARAM_LENGTH} per value.`,
      });
    }
    if (campaign.category !== "promotional") {
      const link = findLink(text);
      if (link !== null) {
        issues.push({
          path,
          rule: "no_links",
          message: `Parameter "${name}" contains ${LINK_NAMES[link.kind]} (${shown(link.match)}); ${campaign.category === "otp" ? "OTP" : "transactional"} Viber messages may not carry links in parameters, so put base URLs in the template text.`,
        });
      }
    }
  }
  return { text: issues.length === 0 ? text : null, issues };
}

/**
 * Checks a send's `params` against its campaign and returns the values as strings, or every
 * problem at once, each at `params.<name>` with the broken rule (`required`, `unknown_param`,
 * `type`, `max_length`, `no_links`, `pin_required`).
 */
export function validateParams(
  campaign: ParamsCampaign,
  params: unknown,
): Result<Record<string, string>, Issue[]> {
  const template = parseTemplate(campaign.template);
  if (template.isErr()) return err(template.error);
  if (params !== undefined && !isPlainObject(params)) {
    const message = `The params must be an object mapping each template placeholder to a value, not ${describe(params)}.`;
    return err([{ path: "params", rule: "type", message }]);
  }
  const given: Record<string, unknown> = params ?? {};
  const wanted = [...template.value];
  // An OTP always needs its pin, even if a malformed template forgot `{{pin}}`.
  if (campaign.category === "otp" && !wanted.includes("pin")) wanted.push("pin");

  const issues: Issue[] = [];
  const values: Array<[string, string]> = [];
  for (const name of wanted) {
    const raw = Object.hasOwn(given, name) ? given[name] : undefined;
    if (raw === undefined) {
      issues.push(
        campaign.category === "otp" && name === "pin"
          ? {
              path: "params.pin",
              rule: "pin_required",
              message: `Parameter "pin" is required for OTP campaigns and was not given.`,
            }
          : {
              path: `params.${name}`,
              rule: "required",
              message: `Parameter "${name}" is required by the campaign template but was not given.`,
            },
      );
      continue;
    }
    const checked = checkValue(campaign, name, raw);
    issues.push(...checked.issues);
    if (checked.text !== null) values.push([name, checked.text]);
  }
  const known = new Set(wanted);
  for (const name of Object.keys(given)) {
    if (known.has(name)) continue;
    issues.push({
      path: `params.${name}`,
      rule: "unknown_param",
      message: `Parameter "${name}" is not used by the campaign template.`,
    });
  }
  // fromEntries defines own properties, so a placeholder named `__proto__` stays a plain key.
  return issues.length > 0 ? err(issues) : ok(Object.fromEntries(values));
}
