import type { OrganizationSettingsRecord, Repositories, Storage } from "../ports.js";
import { type NoticedMemoryOptions, noticedMemory } from "../support/noticed-memory.js";

/** Storage whose `settings.get` may answer from memory, and what keeps that memory true. */
export interface SettingsCache {
  storage: Storage;
  /** An organization's settings changed, or with `null` any may have: forgotten at once. */
  forget(organizationId: string | null): void;
  /** Whether every change to settings is being announced to `forget`. While not, nothing is kept. */
  trust(trusted: boolean): void;
}

/** What is kept per organization: its record, or that it has none (the defaults). */
interface Kept {
  record: OrganizationSettingsRecord | null;
}

const frozen = (kept: Kept): Kept =>
  Object.freeze({
    record:
      kept.record === null
        ? null
        : (Object.freeze({
            ...kept.record,
            allowedCountries:
              kept.record.allowedCountries === null
                ? null
                : Object.freeze([...kept.record.allowedCountries]),
            blockedNumberTypes: Object.freeze([...kept.record.blockedNumberTypes]),
            destinationLimits: Object.freeze({ ...kept.record.destinationLimits }),
            prefixLimits: Object.freeze({ ...kept.record.prefixLimits }),
            countryDailyLimits: Object.freeze({ ...kept.record.countryDailyLimits }),
          }) as OrganizationSettingsRecord),
  });

/**
 * `storage` with each organization's settings read once and then answered from memory for a
 * few seconds: every send to a phone number reads them for its abuse checks, and on PostgreSQL
 * that read would be a round trip of its own. As for campaigns, memory is used only while
 * `trust(true)` says every change is announced to `forget` (on PostgreSQL, by the schema's
 * triggers over LISTEN/NOTIFY, with the organization's id), so a change made by any process is
 * seen here as soon as its notice arrives. An organization without settings is kept too (as
 * having none): most never change them. A change made through this storage is forgotten here
 * before it answers, and again once its transaction ends. Reads inside a transaction go to the
 * database.
 */
export function cachingSettings(
  storage: Storage,
  options: NoticedMemoryOptions = {},
): SettingsCache {
  const memory = noticedMemory<Kept>(options);
  const { forget } = memory;

  const forgetting = (repositories: Repositories, changed: Set<string>): Repositories => ({
    ...repositories,
    settings: {
      ...repositories.settings,
      async put(record) {
        changed.add(record.organizationId);
        forget(record.organizationId);
        try {
          return await repositories.settings.put(record);
        } finally {
          forget(record.organizationId);
        }
      },
    },
  });

  const direct = forgetting(storage, new Set()).settings;

  return {
    storage: {
      ...storage,
      settings: {
        ...direct,
        async get(organizationId) {
          const kept = await memory.get(
            organizationId,
            async () => ({ record: await storage.settings.get(organizationId) }),
            frozen,
          );
          return kept?.record ?? null;
        },
      },
      async transaction(fn) {
        const changed = new Set<string>();
        try {
          return await storage.transaction((tx) => fn(forgetting(tx, changed)));
        } finally {
          for (const id of changed) forget(id);
        }
      },
    },
    forget,
    trust: memory.trust,
  };
}
