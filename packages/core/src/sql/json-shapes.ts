import { SCOPES } from "../auth/scopes.js";
import type {
  Attributes,
  DeliveryDestination,
  MessageError,
  Scope,
  StoredResponse,
  WebhookTopic,
} from "../ports.js";
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
