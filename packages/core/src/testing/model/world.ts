import type { Repositories } from "../../ports.js";
import type { StorageHarness } from "../contract/raw.js";
import type { MemoryStorage } from "../memory/memory-storage.js";

/**
 * What the model remembers between operations: only which records exist (and of which
 * organization), so later operations can pick them. The reference storage decides every answer.
 */
export interface Model {
  profiles: Array<{ id: string; organizationId: string }>;
  /** Profiles written by a transaction that rolled back: they must exist nowhere. */
  ghosts: string[];
  lists: Array<{ id: string; organizationId: string }>;
  campaigns: Array<{ id: string; organizationId: string }>;
  apiKeys: Array<{ id: string; organizationId: string }>;
  messages: Array<{ id: string; organizationId: string }>;
  webhooks: Array<{ id: string; organizationId: string }>;
  deliveries: Array<{ id: string; organizationId: string }>;
}

/** An empty model, for a fresh pair of storages. */
export const emptyModel = (): Model => ({
  profiles: [],
  ghosts: [],
  lists: [],
  campaigns: [],
  apiKeys: [],
  messages: [],
  webhooks: [],
  deliveries: [],
});

/**
 * One storage as an operation sees it. Profile `seq` values are the storage's own (PostgreSQL
 * sequences skip numbers after a rollback), so cursors are mapped through the seq each storage
 * answered when it inserted the profile.
 */
export interface Side {
  readonly name: "reference" | "subject";
  readonly repos: Repositories;
  /** The seq this storage gave each profile, by profile id, as its insert answered. */
  readonly seqs: Map<string, number>;
}

/** The pair of storages one run compares. */
export interface Storages {
  reference: MemoryStorage;
  subject: StorageHarness;
  sides: { reference: Side; subject: Side };
}

/** The seq `side` gave a profile; throws when the profile was never seen inserted. */
export function seqOf(side: Side, profileId: string): number {
  const seq = side.seqs.get(profileId);
  if (seq === undefined) throw new Error(`storage model: no seq seen for ${profileId}`);
  return seq;
}
