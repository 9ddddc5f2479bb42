import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { DeliveryRecord, PrivacyMatch, Repositories } from "../ports.js";
import { profileNotFound } from "../profiles/find-profile.js";
import { isoAt } from "../support/clock.js";
import { isPrefixedId } from "../support/ids.js";
import { useCase } from "../support/result.js";
import { destinationKey } from "../webhooks/delivery-destination.js";
import { notYetAttempted } from "../webhooks/outbox.js";
import { quotesAny, withoutValues, withoutValuesInJson } from "./erased-text.js";
import { findPerson, type Person } from "./person.js";

/** The kinds of record erasure changes, as its answer counts them. */
export type ErasedKind =
  | "profiles"
  | "messages"
  | "message_events"
  | "links"
  | "webhook_deliveries"
  | "delivery_attempts"
  | "idempotency_records"
  | "inbound_messages"
  | "suppression_notes";

/** What an erasure did (`POST /v1/profiles/{id}/erase`, `POST /v1/privacy/erase`). */
export interface ErasureView {
  /** The profiles the request found (erased now or before). */
  profile_ids: string[];
  /** How many records of each kind lost something that identified the person; 0: none left. */
  erased: Record<ErasedKind, number>;
  erased_at: string;
}

/**
 * One kind of record erasure changes: it takes the person out of the records of its kind
 * and answers how many changed (none when they were erased before). Every part runs in the
 * request's transaction, after the person was found, so each sees what the request found.
 */
interface ErasurePart {
  kind: ErasedKind;
  erase(tx: Repositories, person: Person, at: string): Promise<number>;
}

/** Counts the items for which `fn` answered true, one after another. */
async function countWhere<T>(items: readonly T[], fn: (item: T) => Promise<boolean>) {
  let count = 0;
  for (const item of items) if (await fn(item)) count += 1;
  return count;
}

/**
 * Every kind of record that can hold what identifies a person, each erased by its own part.
 * A new table that keeps a number, an address or a text about a person adds its part here
 * (and its reader to `EXPORT_PARTS`).
 */
export const ERASURE_PARTS: readonly ErasurePart[] = [
  {
    kind: "profiles",
    erase: (tx, person, at) =>
      countWhere(person.profiles, async (profile) => {
        if (profile.status === "active") {
          // The soft delete also takes it out of every contact list.
          await tx.profiles.softDelete(person.organizationId, profile.id, at);
        }
        if (profile.phoneNumber === "") return false;
        return tx.privacy.eraseProfile(person.organizationId, profile.id, at);
      }),
  },
  {
    kind: "messages",
    erase: (tx, person) =>
      countWhere(person.messages, async (message) => {
        const error =
          message.error === null
            ? null
            : { ...message.error, message: withoutValues(message.error.message, person.forms) };
        const untouched =
          message.phoneNumber === "" &&
          message.body === "" &&
          error?.message === message.error?.message;
        if (untouched) return false;
        return tx.privacy.eraseMessage(person.organizationId, message.id, error);
      }),
  },
  {
    kind: "message_events",
    async erase(tx, person) {
      let count = 0;
      for (const message of person.messages) {
        for (const event of await tx.messages.listEvents(person.organizationId, message.id)) {
          if (event.error === null || !quotesAny(event.error.message, person.forms)) continue;
          const message = withoutValues(event.error.message, person.forms);
          await tx.privacy.replaceEventError(person.organizationId, event.id, {
            ...event.error,
            message,
          });
          count += 1;
        }
      }
      return count;
    },
  },
  {
    kind: "links",
    async erase(tx, person) {
      let count = 0;
      for (const message of person.messages) {
        const links = await tx.links.listForMessage(person.organizationId, message.id);
        if (links.some((link) => link.originalUrl !== "")) {
          count += await tx.privacy.eraseLinks(person.organizationId, message.id);
        }
      }
      return count;
    },
  },
  {
    kind: "webhook_deliveries",
    async erase(tx, person) {
      let count = 0;
      for (const message of person.messages) {
        for (const delivery of await tx.deliveries.listForMessage(
          person.organizationId,
          message.id,
        )) {
          const payload = JSON.stringify(
            withoutValuesInJson(JSON.parse(delivery.payload), person.forms),
          );
          const lastError =
            delivery.lastError === null ? null : withoutValues(delivery.lastError, person.forms);
          if (payload === delivery.payload && lastError === delivery.lastError) continue;
          await tx.privacy.rewriteDelivery(person.organizationId, delivery.id, payload, lastError);
          count += 1;
        }
      }
      return count;
    },
  },
  {
    kind: "delivery_attempts",
    async erase(tx, person) {
      let count = 0;
      for (const message of person.messages) {
        for (const delivery of await tx.deliveries.listForMessage(
          person.organizationId,
          message.id,
        )) {
          count += await tx.privacy.eraseAttempts(person.organizationId, delivery.id);
        }
      }
      return count;
    },
  },
  {
    kind: "idempotency_records",
    async erase(tx, person) {
      // A request about the person is one whose stored answer names them, or whose work was one
      // of their messages; its body was never stored, only a hash of it.
      const named = [
        ...person.forms,
        ...person.profiles.map((p) => p.id),
        ...person.messages.map((m) => m.id),
      ];
      const messagePoints = new Set(person.messages.map((m) => `message:${m.id}`));
      let count = 0;
      for (const key of await tx.apiKeys.list(person.organizationId)) {
        for (const record of await tx.privacy.idempotencyRecordsOfKey(key.id)) {
          const about =
            (record.recoveryPoint !== null && messagePoints.has(record.recoveryPoint)) ||
            (record.response !== null && quotesAny(record.response.body, named));
          if (!about) continue;
          if (await tx.privacy.deleteIdempotencyRecord(key.id, record.endpoint, record.key)) {
            count += 1;
          }
        }
      }
      return count;
    },
  },
  {
    kind: "inbound_messages",
    // What the person wrote and the number they wrote from; the message stays, so counts and
    // the keyword it carried (what a suppression's `keyword` already says) are still there.
    erase: (tx, person) =>
      countWhere(person.inbound, async (message) => {
        if (message.fromNumber === "" && message.text === "") return false;
        return tx.privacy.eraseInbound(person.organizationId, message.id);
      }),
  },
  {
    kind: "suppression_notes",
    // The suppression stays (it is kept under a keyed hash, not the number, and it is what
    // keeps an erased person who said STOP from being sent to again); its free-text note may
    // name them, so it goes, and so do the notes the consent history kept of suppressions
    // added and lifted (the changes themselves stay). Its links to their profile and inbound
    // message go too, so nothing ties it to them any more. Counted: the notes cleared.
    async erase(tx, person) {
      let count = 0;
      for (const { record } of person.suppressions) {
        if (record.note === null && record.profileId === null && record.inboundId === null) {
          continue;
        }
        const cleared = await tx.privacy.clearSuppressionNote(person.organizationId, record.id);
        if (cleared && record.note !== null) count += 1;
      }
      for (const profile of person.profiles) {
        count += await tx.privacy.clearConsentNotes(person.organizationId, profile.id);
      }
      return count;
    },
  },
];

/** The body of a `profile.erased` event: which profile, and when; nothing about the person. */
export interface ProfileErasedBody {
  id: string;
  topic: "profile.erased";
  created_at: string;
  data: { public_id: string; erased_at: string };
}

/**
 * Queues `profile.erased` for each profile erased now (not one erased before), to every active
 * subscription of the organization to the topic, in the erasure's transaction.
 */
async function announceErased(
  tx: Repositories,
  deps: Pick<Deps, "ids">,
  organizationId: string,
  profileIds: readonly string[],
  at: string,
): Promise<void> {
  if (profileIds.length === 0) return;
  const subscriptions = (await tx.webhooks.list(organizationId)).filter(
    (s) => s.status === "active" && s.topics.includes("profile.erased"),
  );
  for (const profileId of profileIds) {
    const eventId = deps.ids.uuidv7();
    for (const subscription of subscriptions) {
      const id = deps.ids.uuidv7();
      const body: ProfileErasedBody = {
        id,
        topic: "profile.erased",
        created_at: at,
        data: { public_id: profileId, erased_at: at },
      };
      const delivery: DeliveryRecord = {
        id,
        organizationId,
        eventId,
        messageId: null,
        topic: "profile.erased",
        destination: { kind: "subscription", webhookId: subscription.id },
        destinationKey: destinationKey(organizationId, subscription.url),
        payload: JSON.stringify(body),
        ...notYetAttempted(at),
      };
      await tx.deliveries.insert(delivery);
    }
  }
}

/**
 * Erases everything held about the person `match` names, in the caller's transaction, and
 * announces `profile.erased` for each profile it erased.
 */
export async function erasePersonWithin(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "secretBox">,
  organizationId: string,
  match: PrivacyMatch,
  at: string,
): Promise<ErasureView> {
  const person = await findPerson(tx, deps.secretBox, organizationId, match);
  const erased = {} as Record<ErasedKind, number>;
  for (const part of ERASURE_PARTS) erased[part.kind] = await part.erase(tx, person, at);
  const erasedNow = person.profiles.filter((p) => p.phoneNumber !== "").map((p) => p.id);
  await announceErased(tx, deps, organizationId, erasedNow, at);
  return { profile_ids: person.profiles.map((p) => p.id), erased, erased_at: at };
}

/**
 * Erases a profile (active, deleted or erased before) and everything held about it, in one
 * transaction: irreversible. 404 when the organization has no such profile.
 */
export function eraseProfile(
  deps: Pick<Deps, "storage" | "clock" | "ids" | "secretBox">,
  actor: Actor,
  profileId: string,
): ResultAsync<ErasureView, DomainError> {
  return useCase("eraseProfile", () =>
    deps.storage.transaction(async (tx) => {
      if (!isPrefixedId(profileId, "prf")) return err(profileNotFound(profileId));
      const at = isoAt(deps.clock.now());
      const view = await erasePersonWithin(tx, deps, actor.organizationId, { profileId }, at);
      if (view.profile_ids.length === 0) return err(profileNotFound(profileId));
      return ok(view);
    }),
  );
}

/**
 * Erases everyone the organization holds under a phone number or an e-mail address: every
 * profile with it and, for a number, every message sent to it. Nothing found is an erasure
 * with nothing left to erase.
 */
export function erasePerson(
  deps: Pick<Deps, "storage" | "clock" | "ids" | "secretBox">,
  actor: Actor,
  match: { phoneNumber: string } | { email: string },
): ResultAsync<ErasureView, DomainError> {
  return useCase("erasePerson", () =>
    deps.storage.transaction(async (tx) =>
      ok(await erasePersonWithin(tx, deps, actor.organizationId, match, isoAt(deps.clock.now()))),
    ),
  );
}
