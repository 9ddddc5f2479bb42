import type { MessageRecord, PrivacyMatch, ProfileRecord, Repositories } from "../ports.js";
import { erasableForms } from "./erased-text.js";

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
   * What identifies the person as kept texts may quote it (phone numbers, with and without
   * `+`, and e-mail addresses), longest first: what erasure takes out of them.
   */
  forms: string[];
}

/** The person a privacy request names, as stored now. */
export async function findPerson(
  tx: Pick<Repositories, "privacy">,
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
  const values = [
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
    forms: erasableForms(values),
  };
}
