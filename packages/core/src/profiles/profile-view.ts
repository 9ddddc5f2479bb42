import type { Attributes, ProfileRecord, ProfileSource } from "../ports.js";

/** The Profile object of the API: every field present, `null` when absent. */
export interface ProfileView {
  public_id: string;
  phone_number: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  full_name: string | null;
  viber_marketing_consent: boolean;
  sms_marketing_consent: boolean;
  attributes: Attributes;
  source: ProfileSource;
  /** The recipient's IANA time zone, or `null`: their number's prefix decides. */
  time_zone: string | null;
  created_at: string;
  updated_at: string;
}

/** `full_name` is the present names joined by a space, or null. */
const fullName = (first: string | null, last: string | null): string | null =>
  [first, last].filter((part): part is string => part !== null).join(" ") || null;

/** The API view of a stored profile. */
export function toProfileView(profile: ProfileRecord): ProfileView {
  return {
    public_id: profile.id,
    phone_number: profile.phoneNumber,
    email: profile.email,
    first_name: profile.firstName,
    last_name: profile.lastName,
    full_name: fullName(profile.firstName, profile.lastName),
    viber_marketing_consent: profile.viberMarketingConsent,
    sms_marketing_consent: profile.smsMarketingConsent,
    attributes: profile.attributes,
    source: profile.source,
    time_zone: profile.timeZone,
    created_at: profile.createdAt,
    updated_at: profile.updatedAt,
  };
}
