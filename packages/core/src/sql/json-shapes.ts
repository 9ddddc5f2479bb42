import { SCOPES } from "../auth/scopes.js";
import type {
  Attributes,
  DeliveryDestination,
  LegNotes,
  MessageError,
  NumberType,
  OrganizationSettings,
  Scope,
  StoredResponse,
  WebhookTopic,
} from "../ports.js";
import type { SendingWindow } from "../schedule/sending-window.js";
import { WEEKDAYS } from "../schedule/sending-window.js";
import { TOPICS } from "../webhooks/webhook-input.js";
import type { JsonShape } from "./row-reader.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isString = (value: unknown): value is string => typeof value === "string";

const listOf = <T extends string>(allowed: readonly T[], expected: string): JsonShape<T[]> => ({
  expected,
  is: (value): value is T[] =>
    Array.isArray(value) && value.every((item) => (allowed as readonly unknown[]).includes(item)),
});

const isStringOrAbsent = (value: unknown): boolean =>
  value === undefined || value === null || isString(value);

/** `{ code, message, provider?, provider_code? }` of a failed message or event. */
export const messageErrorShape: JsonShape<MessageError> = {
  expected:
    "an object with string code and message, and optional string provider and provider_code",
  is: (value): value is MessageError =>
    isObject(value) &&
    isString(value.code) &&
    isString(value.message) &&
    isStringOrAbsent(value.provider) &&
    isStringOrAbsent(value.provider_code),
};

const ATTEMPT_OUTCOMES: readonly unknown[] = [
  "unreachable",
  "circuit_open",
  "unauthorized",
  "rate_limited",
  "unavailable",
];

/** `{ triedBefore: [{ provider, outcome }], clampedTtlSeconds }` of a message's leg. */
export const legNotesShape: JsonShape<LegNotes> = {
  expected: "an object with triedBefore (provider and outcome each) and clampedTtlSeconds",
  is: (value): value is LegNotes =>
    isObject(value) &&
    Array.isArray(value.triedBefore) &&
    value.triedBefore.every(
      (attempt) =>
        isObject(attempt) &&
        isString(attempt.provider) &&
        ATTEMPT_OUTCOMES.includes(attempt.outcome),
    ) &&
    (value.clampedTtlSeconds === null || Number.isInteger(value.clampedTtlSeconds)),
};

/** A profile's custom attributes: strings, numbers and booleans by name. */
export const attributesShape: JsonShape<Attributes> = {
  expected: "an object of string, number or boolean values",
  is: (value): value is Attributes =>
    isObject(value) &&
    Object.values(value).every((v) => ["string", "number", "boolean"].includes(typeof v)),
};

/** A subscription's topics. */
export const topicsShape: JsonShape<WebhookTopic[]> = listOf(
  TOPICS,
  `an array of ${TOPICS.join(", ")}`,
);

/** An API key's scopes. */
export const scopesShape: JsonShape<Scope[]> = listOf(SCOPES, `an array of ${SCOPES.join(", ")}`);

/** Where a delivery goes. */
export const destinationShape: JsonShape<DeliveryDestination> = {
  expected: '{ kind: "subscription", webhookId } or { kind: "message", url, apiKeyId }',
  is: (value): value is DeliveryDestination =>
    isObject(value) &&
    ((value.kind === "subscription" && isString(value.webhookId)) ||
      (value.kind === "message" && isString(value.url) && isString(value.apiKeyId))),
};

/** A stored HTTP response of an idempotent request. */
export const storedResponseShape: JsonShape<StoredResponse> = {
  expected: "an object with a numeric status, a string body and string headers",
  is: (value): value is StoredResponse =>
    isObject(value) &&
    Number.isInteger(value.status) &&
    isString(value.body) &&
    isObject(value.headers) &&
    Object.values(value.headers).every(isString),
};

const TIME = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

/** A campaign's sending window: days, `HH:MM` start and end, the holiday flag. */
export const sendingWindowShape: JsonShape<SendingWindow> = {
  expected: "an object with days, start and end times and boolean skipPublicHolidays",
  is: (value): value is SendingWindow =>
    isObject(value) &&
    Array.isArray(value.days) &&
    value.days.every((day) => (WEEKDAYS as readonly unknown[]).includes(day)) &&
    isString(value.start) &&
    TIME.test(value.start) &&
    isString(value.end) &&
    TIME.test(value.end) &&
    typeof value.skipPublicHolidays === "boolean",
};

const isLimit = (value: unknown): value is number | null =>
  value === null || (typeof value === "number" && Number.isInteger(value) && value >= 0);

const isCountryCode = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Z]{2}$/.test(value);

/** An organization's allowed countries (`null`, meaning all, is the column's NULL). */
export const allowedCountriesShape: JsonShape<string[]> = {
  expected: "an array of two-letter country codes",
  is: (value): value is string[] => Array.isArray(value) && value.every(isCountryCode),
};

/** An organization's blocked number types. */
export const blockedNumberTypesShape: JsonShape<NumberType[]> = {
  expected: "an array of number type names",
  is: (value): value is NumberType[] =>
    Array.isArray(value) &&
    value.every((item) => typeof item === "string" && /^[A-Z_]+$/.test(item)),
};

/** `{ perHour, perDay }`, each a whole number or null. */
export const destinationLimitsShape: JsonShape<OrganizationSettings["destinationLimits"]> = {
  expected: "an object with perHour and perDay, each a whole number or null",
  is: (value): value is OrganizationSettings["destinationLimits"] =>
    isObject(value) && isLimit(value.perHour) && isLimit(value.perDay),
};

/** `{ perHour }`, a whole number or null. */
export const prefixLimitsShape: JsonShape<OrganizationSettings["prefixLimits"]> = {
  expected: "an object with perHour, a whole number or null",
  is: (value): value is OrganizationSettings["prefixLimits"] =>
    isObject(value) && isLimit(value.perHour),
};

/** Daily limits by country code. */
export const countryDailyLimitsShape: JsonShape<Record<string, number>> = {
  expected: "an object of whole numbers by two-letter country code",
  is: (value): value is Record<string, number> =>
    isObject(value) &&
    Object.entries(value).every(
      ([code, limit]) => isCountryCode(code) && isLimit(limit) && limit !== null,
    ),
};
