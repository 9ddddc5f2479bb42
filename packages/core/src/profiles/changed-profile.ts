import type { ProfileRecord } from "../ports.js";
import { mergeAttributes } from "./attributes.js";
import type { UpdateProfileInput } from "./profile-input.js";

/** The fields a create or update body may change on an existing profile, besides its phone. */
export type ProfileFieldChanges = Omit<UpdateProfileInput, "phone_number">;

/**
 * `current` with the body's fields applied: an absent field keeps its value, a `null` clears a
 * name or the email, and attributes merge (a key set to `null` is removed).
 */
export const withFieldChanges = (
  current: ProfileRecord,
  changes: ProfileFieldChanges,
): ProfileRecord => ({
  ...current,
  email: changes.email === undefined ? current.email : changes.email,
  firstName: changes.first_name === undefined ? current.firstName : changes.first_name,
  lastName: changes.last_name === undefined ? current.lastName : changes.last_name,
  viberMarketingConsent: changes.viber_marketing_consent ?? current.viberMarketingConsent,
  smsMarketingConsent: changes.sms_marketing_consent ?? current.smsMarketingConsent,
  attributes: mergeAttributes(current.attributes, changes.attributes),
  timeZone: changes.time_zone === undefined ? current.timeZone : changes.time_zone,
});
