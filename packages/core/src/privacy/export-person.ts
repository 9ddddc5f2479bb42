import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { type InboundMessageView, toInboundView } from "../inbound/suppressions.js";
import {
  type MessageEventView,
  type MessageView,
  toMessageEventView,
  toMessageView,
} from "../messages/message-view.js";
import type {
  Channel,
  ConsentSource,
  PrivacyMatch,
  ProfileRecord,
  Repositories,
  SuppressionRecord,
} from "../ports.js";
import { profileNotFound } from "../profiles/find-profile.js";
import { type ProfileView, toProfileView } from "../profiles/profile-view.js";
import { isoAt } from "../support/clock.js";
import { isPrefixedId } from "../support/ids.js";
import { useCase } from "../support/result.js";
import { shownPhone } from "./erased-text.js";
import { findPerson, type Person } from "./person.js";
import type { PersonMatch } from "./privacy-input.js";

/** A profile as an export shows it: its view, whether it is still active, and when it went. */
export interface ExportedProfile extends Omit<ProfileView, "phone_number"> {
  /** `null` once erased. */
  phone_number: string | null;
  status: "active" | "inactive";
  deleted_at: string | null;
  erased: boolean;
}

/** One change of a consent flag, of whichever of the person's profiles. */
export interface ExportedConsentChange {
  profile_id: string;
  channel: Channel;
  old_value: boolean | null;
  new_value: boolean;
  api_key_id: string | null;
  /** What made the change. */
  source: ConsentSource;
  /** Why, where someone said (a suppression's note, or the note that lifted one); erasure clears it. */
  note: string | null;
  changed_at: string;
}

/** A message as an export shows it: its view, the text it carried, and every event. */
export interface ExportedMessage extends MessageView {
  /** The rendered text sent, OTP codes masked; `null` once erased. */
  text: string | null;
  events: MessageEventView[];
}

/** A suppression of one of the person's numbers. */
export interface ExportedSuppression {
  channel: Channel;
  /** The person's number the suppression's hash is of (the suppression keeps only the hash). */
  phone_number: string;
  source: SuppressionRecord["source"];
  keyword: string | null;
  provider: string | null;
  note: string | null;
  created_at: string;
}

/** An inbound message as an export shows it. */
export interface ExportedInbound extends Omit<InboundMessageView, "from" | "text"> {
  /** `null` once erased. */
  from: string | null;
  /** `null` once erased. */
  text: string | null;
}

/**
 * Everything held about a person, in one document (`GET /v1/profiles/{id}/export`,
 * `GET /v1/privacy/export`). `profile` is the one asked about, or the newest profile with the
 * number or address (`null` when none); `other_profiles` the older ones with it.
 */
export interface PersonExport {
  exported_at: string;
  profile: ExportedProfile | null;
  other_profiles: ExportedProfile[];
  consent_history: ExportedConsentChange[];
  messages: ExportedMessage[];
  suppressions: ExportedSuppression[];
  inbound: ExportedInbound[];
}

/** Each run of 4 or more digits in an OTP's text, masked: the code is a secret, not data about them. */
const maskCodes = (text: string): string =>
  text.replace(/\d{4,}/g, (digits) => "•".repeat(digits.length));

const toExportedProfile = (profile: ProfileRecord): ExportedProfile => ({
  ...toProfileView(profile),
  phone_number: shownPhone(profile.phoneNumber),
  status: profile.status,
  deleted_at: profile.deletedAt,
  erased: profile.phoneNumber === "",
});

/**
 * One part of the export document: what one kind of record holds about the person. A new
 * table that keeps something about a person adds its reader here (and its part to
 * `ERASURE_PARTS`).
 */
interface ExportPart {
  read(tx: Repositories, person: Person, deps: Pick<Deps, "links">): Promise<Partial<PersonExport>>;
}

export const EXPORT_PARTS: readonly ExportPart[] = [
  {
    async read(_tx, person) {
      const newestFirst = [...person.profiles].reverse().map(toExportedProfile);
      return { profile: newestFirst[0] ?? null, other_profiles: newestFirst.slice(1) };
    },
  },
  {
    async read(tx, person) {
      const changes: ExportedConsentChange[] = [];
      for (const profile of person.profiles) {
        for (const change of await tx.consent.listForProfile(person.organizationId, profile.id)) {
          changes.push({
            profile_id: change.profileId,
            channel: change.channel,
            old_value: change.oldValue,
            new_value: change.newValue,
            api_key_id: change.apiKeyId,
            source: change.source,
            note: change.note,
            changed_at: change.changedAt,
          });
        }
      }
      changes.sort((a, b) => a.changed_at.localeCompare(b.changed_at));
      return { consent_history: changes };
    },
  },
  {
    async read(tx, person, deps) {
      const messages: ExportedMessage[] = [];
      for (const message of person.messages) {
        const links = await tx.links.listForMessage(person.organizationId, message.id);
        const events = await tx.messages.listEvents(person.organizationId, message.id);
        const prices = await tx.messages.listPrices(person.organizationId, [message.id]);
        const text =
          message.body === ""
            ? null
            : message.category === "otp"
              ? maskCodes(message.body)
              : message.body;
        messages.push({
          ...toMessageView(message, links, deps.links?.baseUrl ?? null, prices),
          text,
          events: events.map(toMessageEventView),
        });
      }
      return { messages };
    },
  },
  {
    async read(_tx, person) {
      return {
        suppressions: person.suppressions.map(({ phoneNumber, record }) => ({
          channel: record.channel,
          phone_number: phoneNumber,
          source: record.source,
          keyword: record.keyword,
          provider: record.provider,
          note: record.note,
          created_at: record.createdAt,
        })),
      };
    },
  },
  {
    async read(_tx, person) {
      return {
        inbound: person.inbound.map((message) => ({
          ...toInboundView(message),
          from: message.fromNumber === "" ? null : message.fromNumber,
          text: message.text === "" ? null : message.text,
        })),
      };
    },
  },
];

async function exportWithin(
  tx: Repositories,
  deps: Pick<Deps, "links" | "secretBox">,
  organizationId: string,
  match: PrivacyMatch,
  at: string,
): Promise<{ document: PersonExport; found: number }> {
  const person = await findPerson(tx, deps.secretBox, organizationId, match);
  const document: PersonExport = {
    exported_at: at,
    profile: null,
    other_profiles: [],
    consent_history: [],
    messages: [],
    suppressions: [],
    inbound: [],
  };
  for (const part of EXPORT_PARTS) Object.assign(document, await part.read(tx, person, deps));
  return { document, found: person.profiles.length };
}

/** Everything held about a profile (active, deleted or erased); 404 when there is none. */
export function exportProfile(
  deps: Pick<Deps, "storage" | "clock" | "links" | "secretBox">,
  actor: Actor,
  profileId: string,
): ResultAsync<PersonExport, DomainError> {
  return useCase("exportProfile", () =>
    // One transaction, so the document is one moment's state, not a message without its events.
    deps.storage.transaction(async (tx) => {
      if (!isPrefixedId(profileId, "prf")) return err(profileNotFound(profileId));
      const at = isoAt(deps.clock.now());
      const { document, found } = await exportWithin(
        tx,
        deps,
        actor.organizationId,
        { profileId },
        at,
      );
      if (found === 0) return err(profileNotFound(profileId));
      return ok(document);
    }),
  );
}

/** Everything held under a number or an address; nothing found is an empty document. */
export function exportPerson(
  deps: Pick<Deps, "storage" | "clock" | "links" | "secretBox">,
  actor: Actor,
  match: PersonMatch,
): ResultAsync<PersonExport, DomainError> {
  return useCase("exportPerson", () =>
    deps.storage.transaction(async (tx) => {
      const at = isoAt(deps.clock.now());
      return ok((await exportWithin(tx, deps, actor.organizationId, match, at)).document);
    }),
  );
}
