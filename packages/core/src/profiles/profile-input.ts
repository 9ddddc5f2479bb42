import * as v from "valibot";
import { isTimeZone } from "../schedule/zone-offsets.js";
import { strictFields } from "../support/parse.js";
import { codePointLength, lengthBetween } from "../support/text.js";
import { normalizePhone } from "./phone.js";

export { codePointLength };

/** A first or last name: trimmed, 2–100 code points. */
const name = v.pipe(v.string("must be a string."), v.trim(), lengthBetween(2, 100));

/** A phone number, normalized to E.164 (docs/decisions.md "Phone numbers"). */
export const phoneNumber = (nullMessage: string) =>
  v.pipe(
    v.string(nullMessage),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const normalized = normalizePhone(dataset.value);
      if (normalized.isOk()) return normalized.value;
      addIssue({ message: normalized.error });
      return NEVER;
    }),
  );

const email = v.pipe(
  v.string("must be a string."),
  v.trim(),
  v.maxLength(254, "must be at most 254 characters long."),
  v.email("must be a valid email address."),
);

const consent = (field: string) => v.boolean(`must be true or false; ${field} cannot be null.`);

const ATTRIBUTE_KEY = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Keys valibot's record drops without a word, because assigning them would reach an object's
 * prototype. Refused, so no attribute a client sends is ever lost silently.
 */
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const ATTRIBUTE_STRING_MESSAGE = "must be at most 1000 characters long.";

const attributeValue = v.union(
  [
    v.pipe(
      v.string(),
      v.check((text) => codePointLength(text) <= 1000, ATTRIBUTE_STRING_MESSAGE),
    ),
    v.pipe(v.number(), v.finite("must be a finite number.")),
    v.boolean(),
  ],
  "must be a string (at most 1000 characters), a number or a boolean.",
);

/** Custom attributes as sent: values may be null, which removes the key on update. */
const attributesPatch = v.pipe(
  // valibot's record accepts arrays; attributes are a JSON object only.
  v.custom<Record<string, unknown>>(
    (input) => typeof input === "object" && input !== null && !Array.isArray(input),
    "must be an object.",
  ),
  v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const [key, value] of Object.entries(dataset.value)) {
      if (!RESERVED_KEYS.has(key)) continue;
      addIssue({
        message: "is a reserved name; use another key.",
        path: [{ type: "object", origin: "key", input: dataset.value, key, value }],
      });
    }
  }),
  v.record(
    v.pipe(v.string(), v.regex(ATTRIBUTE_KEY, "keys must be 1 to 64 letters, digits or _.")),
    v.nullable(attributeValue),
    "must be an object.",
  ),
  v.check((record) => Object.keys(record).length <= 50, "must have at most 50 keys."),
);

/** The recipient's own IANA time zone, which a campaign's sending window is read in. */
const timeZone = v.pipe(
  v.string("must be a string."),
  v.check(isTimeZone, "must be an IANA time zone name such as Europe/Paris."),
);

/** The optional fields both bodies take after `phone_number`; consent flags are never null. */
const profileFields = {
  time_zone: v.optional(v.nullable(timeZone)),
  email: v.optional(v.nullable(email)),
  first_name: v.optional(v.nullable(name)),
  last_name: v.optional(v.nullable(name)),
  viber_marketing_consent: v.optional(consent("viber_marketing_consent")),
  sms_marketing_consent: v.optional(consent("sms_marketing_consent")),
  attributes: v.optional(attributesPatch),
};

/** POST /v1/profiles body. */
export const createProfileInput = strictFields(
  { phone_number: phoneNumber("is required and must be a string."), ...profileFields },
  "must be a JSON object.",
);

/** PATCH /v1/profiles/{public_id} body: any subset; the phone and consent flags never null. */
export const updateProfileInput = strictFields(
  {
    phone_number: v.optional(phoneNumber("must be a string; phone_number cannot be null.")),
    ...profileFields,
  },
  "must be a JSON object.",
);

export type UpdateProfileInput = v.InferOutput<typeof updateProfileInput>;
