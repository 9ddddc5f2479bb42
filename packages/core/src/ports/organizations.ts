/**
 * Organizations and their settings (allowed countries, number types, send limits).
 * The conventions every port follows are in `../ports.ts`.
 */

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: string;
}

/** A libphonenumber number type a send may be refused for (`blocked_number_types`). */
export type NumberType =
  | "PREMIUM_RATE"
  | "SHARED_COST"
  | "UAN"
  | "TOLL_FREE"
  | "VOIP"
  | "PERSONAL_NUMBER"
  | "PAGER"
  | "VOICEMAIL"
  | "FIXED_LINE"
  | "MOBILE"
  | "FIXED_LINE_OR_MOBILE";

/**
 * An organization's abuse protection (docs/production.md "Protecting an OTP endpoint"): where
 * and how often it may send. Every limit is off while `null` (or `{}`).
 */
export interface OrganizationSettings {
  /** ISO 3166-1 alpha-2 regions a message may go to; `null` for all. */
  allowedCountries: string[] | null;
  /** Number types no message goes to. */
  blockedNumberTypes: NumberType[];
  /** Sends to one number, every category, per sliding hour and day. */
  destinationLimits: { perHour: number | null; perDay: number | null };
  /** Sends to the numbers that share all but the last 3 digits, per sliding hour. */
  prefixLimits: { perHour: number | null };
  /** Sends per region per UTC day. */
  countryDailyLimits: Record<string, number>;
}

/** The stored settings of one organization; none stored means the defaults. */
export interface OrganizationSettingsRecord extends OrganizationSettings {
  organizationId: string;
  updatedAt: string;
}

/** Organization settings: one record per organization, at most. */
export interface SettingsRepository {
  /** `null` when the organization never changed its settings. */
  get(organizationId: string): Promise<OrganizationSettingsRecord | null>;
  /** Stores the record, replacing the organization's settings if any. */
  put(record: OrganizationSettingsRecord): Promise<void>;
}

export interface OrganizationRepository {
  insert(org: OrganizationRecord): Promise<void>;
  /** `null` when unknown. */
  get(id: string): Promise<OrganizationRecord | null>;
  /** Every organization, oldest first (ties by id). */
  list(): Promise<OrganizationRecord[]>;
}
