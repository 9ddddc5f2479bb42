import { ok } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { suppressedChannels } from "../inbound/opted-out.js";
import {
  anyoneListens,
  consentChangedData,
  recordOrganizationEvent,
} from "../inbound/organization-events.js";
import type {
  Channel,
  ConsentChangeRecord,
  ConsentSource,
  ProfileRecord,
  Repositories,
} from "../ports.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import { findProfile, profileNotFound } from "./find-profile.js";

const FLAGS: ReadonlyArray<[Channel, "viberMarketingConsent" | "smsMarketingConsent"]> = [
  ["viber", "viberMarketingConsent"],
  ["sms", "smsMarketingConsent"],
];

/** A profile's consent flags. */
type Flags = Pick<ProfileRecord, "viberMarketingConsent" | "smsMarketingConsent">;

/** The consent channels whose flag `after` changes relative to `before` (see below). */
const changedFlags = (before: Flags | null, after: Flags) =>
  FLAGS.filter(([, field]) => (before === null ? after[field] : before[field] !== after[field]));

/** Whether `recordConsentChanges` would record anything for this change. */
export const changesConsent = (before: Flags | null, after: Flags): boolean =>
  changedFlags(before, after).length > 0;

/**
 * Records every consent flag that `after` changes relative to `before` (docs/decisions.md "Consent
 * history"). A new profile (`before` null) records the flags it was created with set to true,
 * with `oldValue: null`; false is the default and needs no entry. Each change also sends
 * `profile.consent_changed` to the organization's subscriptions, in the same transaction, with
 * the body an opt-out sends (the number's suppression read once, only when someone listens).
 */
export async function recordConsentChanges(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock" | "secretBox">,
  actor: Actor,
  before: ProfileRecord | null,
  after: ProfileRecord,
  source: ConsentSource = actor.via ?? "api",
): Promise<void> {
  const changed = changedFlags(before, after);
  if (changed.length === 0) return;
  for (const [channel, field] of changed) {
    const oldValue = before === null ? null : before[field];
    const newValue = after[field];
    await tx.consent.insert({
      id: deps.ids.uuidv7(),
      organizationId: after.organizationId,
      profileId: after.id,
      channel,
      oldValue,
      newValue,
      apiKeyId: actor.apiKeyId,
      source,
      changedAt: after.updatedAt,
      note: null,
    });
  }
  const topic = "profile.consent_changed";
  if (!(await anyoneListens(tx, after.organizationId, topic))) return;
  const suppressed = await suppressedChannels(tx, deps, after.organizationId, after.phoneNumber);
  for (const [channel, field] of changed) {
    const data = consentChangedData({
      profileId: after.id,
      phoneNumber: after.phoneNumber,
      channel,
      marketingConsent: after[field],
      suppressed: suppressed.has(channel),
      source,
      changedAt: after.updatedAt,
    });
    await recordOrganizationEvent(tx, deps, after.organizationId, topic, data);
  }
}

/** A consent change as the core API shows it. */
export interface ConsentChangeView {
  channel: Channel;
  old_value: boolean | null;
  new_value: boolean;
  api_key_id: string | null;
  /** What made the change: api, import, console, inbound (a STOP or START) or provider. */
  source: ConsentSource;
  changed_at: string;
  /** Why, where someone said (a suppression's note, or the one that lifted it). */
  note: string | null;
}

const toView = (change: ConsentChangeRecord): ConsentChangeView => ({
  channel: change.channel,
  old_value: change.oldValue,
  new_value: change.newValue,
  api_key_id: change.apiKeyId,
  source: change.source,
  changed_at: change.changedAt,
  note: change.note,
});

/** A profile's consent history, oldest first; 404 when the profile is not active. */
export const getConsentHistory: ShowOne<ConsentChangeView[]> = showOne(
  "getConsentHistory",
  findProfile,
  profileNotFound,
  async (profile, deps, actor) => {
    const changes = await deps.storage.consent.listForProfile(actor.organizationId, profile.id);
    return ok(changes.map(toView));
  },
);
