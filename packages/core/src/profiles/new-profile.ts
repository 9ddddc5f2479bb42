import type * as v from "valibot";
import type { Deps } from "../deps.js";
import type { NewProfile, ProfileSource } from "../ports.js";
import { mergeAttributes } from "./attributes.js";
import type { createProfileInput } from "./profile-input.js";

/** A parsed create-profile body; every field but the phone number may be left out. */
export type NewProfileInput = Pick<v.InferOutput<typeof createProfileInput>, "phone_number"> &
  Partial<v.InferOutput<typeof createProfileInput>>;

/**
 * The record of a new active profile, the one place its defaults live: absent names and email
 * are null, absent consent is false, attributes start from the input's (null values dropped).
 * Used by create, import and the find-or-create of a send's recipient.
 */
export function newProfile(
  deps: Pick<Deps, "ids">,
  organizationId: string,
  input: NewProfileInput,
  source: ProfileSource,
  now: string,
): NewProfile {
  return {
    id: deps.ids.prefixed("prf"),
    organizationId,
    phoneNumber: input.phone_number,
    email: input.email ?? null,
    firstName: input.first_name ?? null,
    lastName: input.last_name ?? null,
    viberMarketingConsent: input.viber_marketing_consent ?? false,
    smsMarketingConsent: input.sms_marketing_consent ?? false,
    attributes: mergeAttributes({}, input.attributes),
    source,
    status: "active",
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    timeZone: input.time_zone ?? null,
  };
}
