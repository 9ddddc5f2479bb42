import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type Issue, type ValidationError, validationError } from "../errors.js";
import type { Category, Channel } from "../ports.js";
import { normalizePhone } from "../profiles/phone.js";
import { toIssues } from "../support/parse.js";
import { parseTemplate } from "./template.js";

/** What the cross-field rules look at; a field is `undefined` when absent or malformed. */
export interface CampaignFacts {
  channel: Channel | undefined;
  category: Category | undefined;
  smsFallback: boolean | undefined;
  sender: string | undefined;
  template: string | undefined;
  /** The fallback's SMS sender when the input sets one (`null` clears it). */
  smsSender?: string | null | undefined;
}

/**
 * An SMS alphanumeric sender id: 1–11 ASCII letters, digits or spaces with at least one letter
 * (GSM 03.40 allows 11 characters; carriers refuse all-digit ids, which read as numbers).
 */
const ALPHANUMERIC_SENDER = /^[A-Za-z0-9 ]{1,11}$/;
const HAS_LETTER = /[A-Za-z]/;

/**
 * The SMS sender, normalized: an alphanumeric id as given, or a phone number in E.164.
 * Short codes and national numbers are refused, because without a `+` a carrier cannot tell
 * which country a numeric sender belongs to.
 */
function normalizeSmsSender(sender: string): Result<string, string> {
  if (sender.startsWith("+")) {
    return normalizePhone(sender).mapErr(
      (reason) => `An SMS sender that is a phone number ${reason}`,
    );
  }
  if (ALPHANUMERIC_SENDER.test(sender) && HAS_LETTER.test(sender)) return ok(sender);
  return err(
    "An SMS sender must be an alphanumeric id of at most 11 letters, digits or spaces with at least one letter, or a phone number in E.164 format.",
  );
}

/**
 * The rules that tie fields together: SMS fallback only on Viber, the SMS sender's shape, a
 * well-formed template and `{{pin}}` in every OTP template. Returns every issue and the
 * normalized sender.
 */
export function checkCampaignRules(facts: CampaignFacts): {
  issues: Issue[];
  sender: string | undefined;
  smsSender: string | null | undefined;
} {
  const issues: Issue[] = [];
  let sender = facts.sender;
  let smsSender = facts.smsSender;
  if (typeof facts.smsSender === "string") {
    if (facts.channel === "sms") {
      issues.push({
        path: "sms_sender",
        rule: "viber_only",
        message:
          "An SMS sender for the fallback is only for Viber campaigns; an SMS campaign's sender is its sender.",
      });
    } else {
      const normalized = normalizeSmsSender(facts.smsSender.trim());
      if (normalized.isOk()) smsSender = normalized.value;
      else issues.push({ path: "sms_sender", rule: "sms_sender", message: normalized.error });
    }
  }
  if (facts.smsFallback === true && facts.channel === "sms") {
    issues.push({
      path: "sms_fallback",
      rule: "viber_only",
      message: "SMS fallback is only available for Viber campaigns.",
    });
  }
  if (facts.sender !== undefined && facts.channel === "sms") {
    const normalized = normalizeSmsSender(facts.sender);
    if (normalized.isOk()) sender = normalized.value;
    else issues.push({ path: "sender", rule: "sms_sender", message: normalized.error });
  }
  if (facts.template !== undefined) {
    const parsed = parseTemplate(facts.template);
    if (parsed.isErr()) issues.push(...parsed.error);
    else if (facts.category === "otp" && !parsed.value.includes("pin")) {
      issues.push({
        path: "template",
        rule: "pin_required",
        message: "An OTP campaign's template must contain the {{pin}} placeholder.",
      });
    }
  }
  return { issues, sender, smsSender };
}

const field = (input: unknown, key: string): unknown =>
  typeof input === "object" && input !== null ? Reflect.get(input, key) : undefined;

const picked = <T extends string>(value: unknown, allowed: readonly T[]): T | undefined =>
  allowed.find((option) => option === value);

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/**
 * Parses a campaign body with `schema` and checks the cross-field rules in the same pass, so
 * the caller sees every issue at once. `fixed` supplies the channel and category of a stored
 * campaign on update. `sender` and `smsSender` are normalized when the input has them.
 */
export function parseCampaignInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  fixed: Partial<Pick<CampaignFacts, "channel" | "category" | "smsFallback">> = {},
): Result<
  { value: v.InferOutput<S>; sender: string | undefined; smsSender: string | null | undefined },
  ValidationError
> {
  const parsed = v.safeParse(schema, input, { abortEarly: false });
  const issues: Issue[] = parsed.success ? [] : toIssues(parsed.issues);
  const template = field(input, "template");
  const fallback = field(input, "sms_fallback");
  const rules = checkCampaignRules({
    channel: fixed.channel ?? picked(field(input, "channel"), ["viber", "sms"] as const),
    category:
      fixed.category ??
      picked(field(input, "category"), ["otp", "transactional", "promotional"] as const),
    smsFallback: typeof fallback === "boolean" ? fallback : fixed.smsFallback,
    sender: text(field(input, "sender")),
    template: typeof template === "string" ? template : undefined,
    smsSender:
      typeof field(input, "sms_sender") === "string"
        ? (field(input, "sms_sender") as string)
        : undefined,
  });
  // A field the schema already refused is not reported twice.
  const refused = new Set(issues.map((issue) => issue.path));
  issues.push(...rules.issues.filter((issue) => !refused.has(issue.path)));
  if (!parsed.success || issues.length > 0) return err(validationError(issues));
  return ok({ value: parsed.output, sender: rules.sender, smsSender: rules.smsSender });
}
