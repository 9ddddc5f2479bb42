import type { Deps } from "../deps.js";
import type {
  Channel,
  ConsentSource,
  ProfileRecord,
  Repositories,
  SuppressionRecord,
  SuppressionSource,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { consentChangedData, recordOrganizationEvent } from "./organization-events.js";
import { phoneHash } from "./suppression-keys.js";

/** Who or what asked for a change of consent, for the suppression and the history. */
export interface ConsentAct {
  /**
   * What made the change, as the consent history records it. A suppression records `api` for
   * one an organization added itself, whether through the API, the console or an import.
   */
  source: ConsentSource;
  keyword: string | null;
  provider: string | null;
  note: string | null;
  /** The API key that asked, when one did. */
  apiKeyId: string | null;
  /** The inbound message that asked, for an opt-out by reply. */
  inboundId?: string | null | undefined;
}

/** The source a suppression records for a change the history records as `source`. */
const suppressionSource = (source: ConsentSource): SuppressionSource =>
  source === "inbound" || source === "provider" ? source : "api";

const FIELD = {
  sms: "smsMarketingConsent",
  viber: "viberMarketingConsent",
} as const satisfies Record<Channel, keyof ProfileRecord>;

/** A profile with one channel's marketing consent set, its consent history and event written. */
async function setConsent(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  profile: ProfileRecord,
  channel: Channel,
  value: boolean,
  act: ConsentAct,
  at: string,
): Promise<void> {
  const field = FIELD[channel];
  const next: ProfileRecord = { ...profile, [field]: value, updatedAt: at };
  const updated = await tx.profiles.update(next);
  if (updated !== true)
    throw new Error(`The profile ${profile.id} vanished during a consent change.`);
  await recordHistory(tx, deps, profile, channel, value, act, at);
}

/** One entry of the consent history: the channel's consent before, `value` after, and why. */
async function recordHistory(
  tx: Repositories,
  deps: Pick<Deps, "ids">,
  profile: ProfileRecord,
  channel: Channel,
  value: boolean,
  act: ConsentAct,
  at: string,
): Promise<void> {
  const field = FIELD[channel];
  await tx.consent.insert({
    id: deps.ids.uuidv7(),
    organizationId: profile.organizationId,
    profileId: profile.id,
    channel,
    oldValue: profile[field],
    newValue: value,
    apiKeyId: act.apiKeyId,
    source: act.source satisfies ConsentSource,
    changedAt: at,
    note: act.note,
  });
}

/** What an opt-out or opt-in did. */
export interface ConsentEffect {
  /** Whether a suppression was added (opt-out) or lifted (opt-in). */
  suppressionChanged: boolean;
  /** Whether the profile's marketing consent changed. */
  consentChanged: boolean;
}

/**
 * An opt-out of `phoneNumber` on `channel` for the organization: a suppression (unless one is
 * there already), and the channel's marketing consent of the number's profile, if any, false.
 * Sends `profile.consent_changed` when either changed. Inside the caller's transaction.
 */
export async function optOut(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  key: Buffer,
  organizationId: string,
  channel: Channel,
  phoneNumber: string,
  act: ConsentAct,
): Promise<ConsentEffect> {
  const at = isoAt(deps.clock.now());
  const profile = await tx.profiles.findByPhone(organizationId, phoneNumber);
  const field = FIELD[channel];
  const suppression: SuppressionRecord = {
    id: deps.ids.uuidv7(),
    organizationId,
    channel,
    phoneHash: phoneHash(key, phoneNumber),
    source: suppressionSource(act.source),
    keyword: act.keyword,
    provider: act.provider,
    note: act.note,
    consentBefore: profile === null ? null : profile[field],
    profileId: profile?.id ?? null,
    inboundId: act.inboundId ?? null,
    createdAt: at,
  };
  const added = await tx.suppressions.insert(suppression);
  const consentChanged = profile?.[field] === true;
  if (profile !== null && consentChanged) {
    await setConsent(tx, deps, profile, channel, false, act, at);
  }
  if (added || consentChanged) {
    await recordOrganizationEvent(
      tx,
      deps,
      organizationId,
      "profile.consent_changed",
      consentChangedData({
        profileId: profile?.id ?? null,
        phoneNumber,
        channel,
        marketingConsent: false,
        suppressed: true,
        ...act,
        changedAt: at,
      }),
    );
  }
  return { suppressionChanged: added, consentChanged };
}

/**
 * An opt-in (or the lifting of a suppression): removes the channel's suppression of the number
 * when `lifts` allows its source (an opt-in by keyword lifts only `inbound` and `provider`
 * ones), and restores the marketing consent only when it was true right before the opt-out
 * undone. Sends `profile.consent_changed` when anything changed. Inside the caller's transaction.
 */
export async function optIn(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  key: Buffer,
  organizationId: string,
  channel: Channel,
  phoneNumber: string,
  act: ConsentAct,
  lifts: readonly SuppressionSource[],
  restoreConsent = true,
): Promise<ConsentEffect & { lifted: SuppressionRecord | null }> {
  const hash = phoneHash(key, phoneNumber);
  const existing = (await tx.suppressions.forNumber(organizationId, hash)).find(
    (s) => s.channel === channel,
  );
  if (existing === undefined || !lifts.includes(existing.source)) {
    return { suppressionChanged: false, consentChanged: false, lifted: null };
  }
  await tx.suppressions.delete(organizationId, channel, hash);
  const at = isoAt(deps.clock.now());
  const profile = await tx.profiles.findByPhone(organizationId, phoneNumber);
  const field = FIELD[channel];
  const consentChanged =
    restoreConsent && profile !== null && existing.consentBefore === true && !profile[field];
  if (profile !== null && consentChanged) {
    await setConsent(tx, deps, profile, channel, true, act, at);
  } else if (profile !== null && !restoreConsent) {
    // A suppression lifted by the organization (DELETE, the console) leaves the consent as it
    // is, and is written to the history all the same, with the note that lifted it.
    await recordHistory(tx, deps, profile, channel, profile[field], act, at);
  }
  await recordOrganizationEvent(
    tx,
    deps,
    organizationId,
    "profile.consent_changed",
    consentChangedData({
      profileId: profile?.id ?? null,
      phoneNumber,
      channel,
      marketingConsent: profile === null ? false : consentChanged || profile[field],
      suppressed: false,
      ...act,
      changedAt: at,
    }),
  );
  return { suppressionChanged: true, consentChanged, lifted: existing };
}
