import { getCountries } from "libphonenumber-js/max";
import * as v from "valibot";
import type { NumberType } from "../ports.js";
import { strictFields } from "../support/parse.js";

/** Every region a number can belong to (ISO 3166-1 alpha-2, as libphonenumber-js knows them). */
export const REGIONS: ReadonlySet<string> = new Set(getCountries());

/** Every number type `blocked_number_types` may name (libphonenumber's). */
export const NUMBER_TYPES: readonly NumberType[] = [
  "PREMIUM_RATE",
  "SHARED_COST",
  "UAN",
  "TOLL_FREE",
  "VOIP",
  "PERSONAL_NUMBER",
  "PAGER",
  "VOICEMAIL",
  "FIXED_LINE",
  "MOBILE",
  "FIXED_LINE_OR_MOBILE",
];

/** The largest limit accepted: more than any organization sends in a day. */
const MAX_LIMIT = 1_000_000_000;

const region = v.pipe(
  v.string("must be a string."),
  v.check(
    (code) => REGIONS.has(code),
    (issue) =>
      `${JSON.stringify(issue.input)} is not an ISO 3166-1 alpha-2 country code (upper case, such as "GB").`,
  ),
);

/** A region list, without repeats. */
export const countryList = v.pipe(
  v.array(region, "must be an array of ISO 3166-1 alpha-2 country codes, or null for all."),
  v.transform((codes) => [...new Set(codes)]),
);

const limit = v.nullable(
  v.pipe(
    v.number("must be a whole number of at least 0, or null for no limit."),
    v.integer("must be a whole number of at least 0, or null for no limit."),
    v.minValue(0, "must be a whole number of at least 0, or null for no limit."),
    v.maxValue(MAX_LIMIT, `must be at most ${MAX_LIMIT}.`),
  ),
);

const dailyLimit = v.pipe(
  v.number("must be a whole number of at least 0."),
  v.integer("must be a whole number of at least 0."),
  v.minValue(0, "must be a whole number of at least 0."),
  v.maxValue(MAX_LIMIT, `must be at most ${MAX_LIMIT}.`),
);

/** The body of PATCH /v1/settings: each field given replaces that setting; `null` turns it off. */
export const updateSettingsInput = strictFields(
  {
    allowed_countries: v.optional(v.nullable(countryList)),
    blocked_number_types: v.optional(
      v.pipe(
        v.array(
          v.picklist(NUMBER_TYPES, `must be one of ${NUMBER_TYPES.join(", ")}.`),
          "must be an array of number types.",
        ),
        v.transform((types) => [...new Set(types)]),
      ),
    ),
    destination_limits: v.optional(
      v.nullable(
        strictFields(
          { per_hour: v.optional(limit), per_day: v.optional(limit) },
          "must be an object with per_hour and per_day, or null.",
        ),
      ),
    ),
    prefix_limits: v.optional(
      v.nullable(
        strictFields({ per_hour: v.optional(limit) }, "must be an object with per_hour, or null."),
      ),
    ),
    country_daily_limits: v.optional(
      v.nullable(
        v.pipe(
          v.record(region, dailyLimit, "must be an object of daily limits by country code."),
          // A record key's issue names the key, not where it is: the path says which.
          v.metadata({ openApi: { propertyNames: { pattern: "^[A-Z]{2}$" } } }),
        ),
      ),
    ),
  },
  "must be a JSON object of settings.",
);

export type UpdateSettingsInput = v.InferOutput<typeof updateSettingsInput>;
