import { existingSuppressionKey, phoneHash } from "../inbound/suppression-keys.js";
import type {
  InboundMessageRecord,
  MessageRecord,
  PrivacyMatch,
  ProfileRecord,
  Repositories,
  SecretBox,
  SuppressionRecord,
} from "../ports.js";
import { erasableForms } from "./erased-text.js";

/** One of the person's suppressions, with the number of theirs its hash is of. */
export interface PersonSuppression {
  phoneNumber: string;
  record: SuppressionRecord;
}

/**
 * Everything a privacy request is about, found once in its transaction: the person's profiles
 * (active, deleted or erased) and messages (theirs, and, for a request by number, every
 * message sent to the number whoever's profile it went under).
 */
export interface Person {
  organizationId: string;
  profiles: ProfileRecord[];
  /** Oldest first, each once. */
  messages: MessageRecord[];
  /**
   * The inbound messages from any of the person's numbers or of their profiles, oldest first.
   */
  inbound: InboundMessageRecord[];
  /** The suppressions of the person's numbers (the hashes of them), oldest first. */
  suppressions: PersonSuppression[];
  /**
   * What identifies the person as kept texts may quote it (phone numbers, with and without
   * `+`, and e-mail addresses), longest first: what erasure takes out of them.
   */
  forms: string[];
}

/** The person a privacy request names, as stored now. */
export async function findPerson(
  tx: Pick<Repositories, "privacy" | "suppressions">,
  box: SecretBox,
  organizationId: string,
  match: PrivacyMatch,
): Promise<Person> {
  const profiles = await tx.privacy.findProfiles(organizationId, match);
  const messages = new Map<string, MessageRecord>();
  const add = (found: MessageRecord[]) => {
    for (const message of found) messages.set(message.id, message);
  };
  for (const profile of profiles) {
    add(await tx.privacy.messagesOfProfile(organizationId, profile.id));
  }
  if ("phoneNumber" in match)
    add(await tx.privacy.messagesToNumber(organizationId, match.phoneNumber));
  // Every number of the person: their profiles', the messages sent to them, the one asked about.
  const numbers = [
    ...new Set(
      [
        ...profiles.map((p) => p.phoneNumber),
        ...[...messages.values()].map((m) => m.phoneNumber),
        "phoneNumber" in match ? match.phoneNumber : "",
      ].filter((n) => n !== ""),
    ),
  ];
  const inbound = await tx.privacy.inboundOfPerson(
    organizationId,
    numbers,
    profiles.map((p) => p.id),
  );
  // A suppression keeps only the keyed hash of its number: the person's are found by hashing
  // their numbers with the organization's key (none yet: no suppression at all).
  const suppressions: PersonSuppression[] = [];
  const key = await existingSuppressionKey(tx, box, organizationId);
  if (key !== null) {
    for (const phoneNumber of numbers) {
      for (const record of await tx.suppressions.forNumber(
        organizationId,
        phoneHash(key, phoneNumber),
      )) {
        suppressions.push({ phoneNumber, record });
      }
    }
  }
  suppressions.sort(
    (a, b) =>
      a.record.createdAt.localeCompare(b.record.createdAt) ||
      a.record.id.localeCompare(b.record.id),
  );
  const values = [
    ...inbound.map((m) => m.fromNumber),
    ...profiles.flatMap((p) => [p.phoneNumber, p.email ?? ""]),
    ...[...messages.values()].map((m) => m.phoneNumber),
    "phoneNumber" in match ? match.phoneNumber : "",
    "email" in match ? match.email : "",
  ];
  return {
    organizationId,
    profiles,
    messages: [...messages.values()].sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    ),
    inbound,
    suppressions,
    forms: erasableForms(values),
  };
}
