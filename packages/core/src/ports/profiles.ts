/**
 * Profiles, their consent history and contact lists.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { Channel } from "./campaigns.js";

export type ProfileSource = "api" | "import" | "shopify" | "woocommerce";

export type AttributeValue = string | number | boolean;

export type Attributes = Record<string, AttributeValue>;

export interface ProfileRecord {
  id: string;
  organizationId: string;
  /** Internal insertion order; the cursor of list pages. Assigned by storage on insert. */
  seq: number;
  phoneNumber: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  viberMarketingConsent: boolean;
  smsMarketingConsent: boolean;
  attributes: Attributes;
  source: ProfileSource;
  status: "active" | "inactive";
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  /** The recipient's own IANA time zone, when known; else their number's prefix decides. */
  timeZone: string | null;
}

/** A profile as handed to `insert`: storage assigns `seq`. */
export type NewProfile = Omit<ProfileRecord, "seq">;

export interface ConsentChangeRecord {
  id: string;
  organizationId: string;
  profileId: string;
  channel: Channel;
  /** `null` when the profile was created with the flag. */
  oldValue: boolean | null;
  newValue: boolean;
  /** The key that made the change; `null` when no key did (an inbound STOP, the CLI). */
  apiKeyId: string | null;
  /** What made the change. */
  source: ConsentSource;
  changedAt: string;
  /**
   * Why, where someone said: a suppression's note, or the note that lifted one (a lifted
   * suppression is written even when the consent stays as it was). Erasure clears it.
   */
  note: string | null;
}

/** What changed a consent flag. */
export type ConsentSource = "api" | "import" | "console" | "inbound" | "provider";

export interface ContactListRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
}

export interface MembershipRecord {
  listId: string;
  profileId: string;
  organizationId: string;
  addedAt: string;
}

export interface ProfileListQuery {
  organizationId: string;
  /** Exact E.164 match. */
  phoneNumber?: string | undefined;
  /** Case-insensitive exact match. */
  email?: string | undefined;
  /** Only rows with `seq` greater than this. */
  afterSeq?: number | undefined;
  /** How many rows to return at most (the core asks for one more than the page size). */
  limit: number;
}

export interface ProfileRepository {
  /**
   * Inserts an active profile and returns it with its `seq`. Atomic with the uniqueness of
   * `phoneNumber` among the organization's active profiles: when another active profile holds
   * the number, nothing is written and `"phone_number_taken"` is returned.
   */
  insert(profile: NewProfile): Promise<ProfileRecord | "phone_number_taken">;
  /** The active profile, or `null` (unknown, another organization's or inactive). */
  get(organizationId: string, id: string): Promise<ProfileRecord | null>;
  /** The active profile holding this E.164 number, or `null`. */
  findByPhone(organizationId: string, phoneNumber: string): Promise<ProfileRecord | null>;
  /**
   * A send's recipient by number in one read: `findByPhone`'s answer, and the channels of the
   * organization's suppressions stored under `phoneHash` (the number's keyed hash), which are
   * answered whether or not a profile holds the number.
   */
  findRecipient(
    organizationId: string,
    phoneNumber: string,
    phoneHash: string,
  ): Promise<{ profile: ProfileRecord | null; suppressed: Channel[] }>;
  /** Active profiles whose email matches case-insensitively, oldest first, at most `limit`. */
  findByEmail(organizationId: string, email: string, limit: number): Promise<ProfileRecord[]>;
  /** Active profiles in `seq` order, filtered and paged as the query says. */
  list(query: ProfileListQuery): Promise<ProfileRecord[]>;
  /**
   * Replaces every mutable field of an active profile with `profile`'s. `false` when it is not
   * an active profile of the organization; `"phone_number_taken"` (nothing written) when the
   * new number is held by another active profile.
   */
  update(profile: ProfileRecord): Promise<boolean | "phone_number_taken">;
  /**
   * Marks an active profile inactive (status, `deletedAt`, `updatedAt`) and removes all its
   * contact list memberships, atomically. `false` when it is not an active profile.
   */
  softDelete(organizationId: string, id: string, at: string): Promise<boolean>;
}

export interface ConsentHistoryRepository {
  insert(change: ConsentChangeRecord): Promise<void>;
  /** A profile's consent changes, oldest first. */
  listForProfile(organizationId: string, profileId: string): Promise<ConsentChangeRecord[]>;
}

export interface ContactListRepository {
  /** `"name_taken"` when the organization already has a list with this name. */
  insert(list: ContactListRecord): Promise<undefined | "name_taken">;
  get(organizationId: string, id: string): Promise<ContactListRecord | null>;
  findByName(organizationId: string, name: string): Promise<ContactListRecord | null>;
  /** The organization's lists, oldest first. */
  list(organizationId: string): Promise<ContactListRecord[]>;
  /** Adds a membership; adding an existing one is a no-op that returns `false`. */
  addMember(membership: MembershipRecord): Promise<boolean>;
  /** `false` when there was no such membership. */
  removeMember(organizationId: string, listId: string, profileId: string): Promise<boolean>;
  /** Ids of the active profiles in a list, in the order they were added. */
  listMembers(organizationId: string, listId: string): Promise<string[]>;
  /** Ids of the lists a profile belongs to, oldest membership first. */
  listsOfProfile(organizationId: string, profileId: string): Promise<string[]>;
}
