import { err, ok, type Result } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type AmbiguousError, type DomainError, notFound } from "../errors.js";
import { recipientOptedOut } from "../inbound/opted-out.js";
import type { CampaignRecord, Channel, ProfileRecord, Repositories } from "../ports.js";
import { createProfileByPhone } from "../profiles/ensure-profile.js";
import { findProfile } from "../profiles/find-profile.js";
import { normalizePhone } from "../profiles/phone.js";

/** A recipient as sent; a `phone_number` value is normalized to E.164 before resolution. */
export type Recipient =
  | { type: "phone_number"; value: string }
  | { type: "email"; value: string }
  | { type: "public_id"; value: string };

/** How a recipient turned into a profile: `created` when the send made it. */
export interface ResolvedRecipient {
  profile: ProfileRecord;
  created: boolean;
  /**
   * The channels on which the organization suppresses the number, when they were read with the
   * profile (a recipient given by number); `null` when they are still to be read.
   */
  suppressed: ReadonlySet<Channel> | null;
}

const profileNotFound = (recipient: Recipient) =>
  notFound("profile", recipient.value, "profile_not_found");

const ambiguous = (email: string): AmbiguousError => ({
  type: "ambiguous",
  code: "ambiguous_recipient",
  message: `The email ${JSON.stringify(email)} matches more than one profile; send to a phone_number or public_id instead.`,
  matches: 2,
});

/** The recipient with its phone number in E.164, or why the number is not one. */
export function normalizeRecipient(recipient: Recipient): Result<Recipient, string> {
  if (recipient.type !== "phone_number") return ok(recipient);
  return normalizePhone(recipient.value).map((value) => ({ type: "phone_number", value }));
}

/**
 * Finds the active profile a send goes to. A `public_id` or `email` with no active profile is
 * 404 in every category, and an email matching several active profiles is ambiguous. A phone
 * number without a profile gets one for OTP and Transactional campaigns (docs/api.md
 * "Recipients"); for Promotional it is 404, since consent cannot exist without one.
 * Call inside the send's transaction, so an auto-created profile commits with the message.
 * A number's suppressions, under its keyed hash `hashOf(number)`, are read in the same
 * statement as its profile.
 */
export async function resolveRecipient(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  actor: Actor,
  campaign: Pick<CampaignRecord, "category" | "channel">,
  recipient: Recipient,
  hashOf: (phoneNumber: string) => string,
): Promise<Result<ResolvedRecipient, DomainError>> {
  const organizationId = actor.organizationId;
  switch (recipient.type) {
    case "public_id": {
      const profile = await findProfile(tx, organizationId, recipient.value);
      return profile
        ? ok({ profile, created: false, suppressed: null })
        : err(profileNotFound(recipient));
    }
    case "email": {
      // Two rows are enough to know the lookup is ambiguous.
      const matches = await tx.profiles.findByEmail(organizationId, recipient.value, 2);
      const [first] = matches;
      if (first === undefined) return err(profileNotFound(recipient));
      if (matches.length > 1) return err(ambiguous(recipient.value));
      return ok({ profile: first, created: false, suppressed: null });
    }
    case "phone_number": {
      const found = await tx.profiles.findRecipient(
        organizationId,
        recipient.value,
        hashOf(recipient.value),
      );
      const suppressed = new Set(found.suppressed);
      if (found.profile) return ok({ profile: found.profile, created: false, suppressed });
      if (campaign.category === "promotional") return err(profileNotFound(recipient));
      // Refused as the caller would refuse it, without making a profile to roll back.
      if (suppressed.has(campaign.channel)) return err(recipientOptedOut(campaign.channel));
      const profile = await createProfileByPhone(tx, deps, actor, recipient.value);
      return ok({ profile, created: true, suppressed });
    }
  }
}
