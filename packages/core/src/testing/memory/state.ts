import type {
  ApiKeyRecord,
  CampaignRecord,
  ConsentChangeRecord,
  ConsoleSessionRecord,
  ConsoleSignInTokenRecord,
  ContactListRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  IdempotencyRecord,
  InboundMessageRecord,
  LinkRecord,
  MembershipRecord,
  MessageEventRecord,
  MessagePriceRecord,
  MessageRecord,
  OrganizationRecord,
  OrganizationSettingsRecord,
  ProfileRecord,
  SenderAssignmentRecord,
  SuppressionKeyRecord,
  SuppressionRecord,
  WebhookSubscriptionRecord,
} from "../../ports.js";

/**
 * Everything the in-memory storage keeps. Maps and arrays keep insertion order, which is the
 * tiebreak wherever two records carry the same timestamp.
 */
export interface MemoryState {
  organizations: Map<string, OrganizationRecord>;
  /** Keyed by organization id. */
  settings: Map<string, OrganizationSettingsRecord>;
  profiles: Map<string, ProfileRecord>;
  /** The last `seq` handed out; profiles get `lastProfileSeq + 1`. */
  lastProfileSeq: number;
  consentChanges: ConsentChangeRecord[];
  contactLists: Map<string, ContactListRecord>;
  /** In the order they were added. */
  memberships: MembershipRecord[];
  campaigns: Map<string, CampaignRecord>;
  /**
   * The insertion sequence of campaigns, messages and deliveries by id (ids never repeat
   * across them), the cursor of their newest-first pages; `lastSeq` is the last handed out.
   */
  seqs: Map<string, number>;
  lastSeq: number;
  apiKeys: Map<string, ApiKeyRecord>;
  messages: Map<string, MessageRecord>;
  events: MessageEventRecord[];
  webhooks: Map<string, WebhookSubscriptionRecord>;
  deliveries: Map<string, DeliveryRecord>;
  attempts: DeliveryAttemptRecord[];
  /** Hit times (ms) per rate-limit key, ascending. */
  rateLimitHits: Map<string, number[]>;
  /** Counted sends per destination counter key: hit times (ms), or a period's total. */
  destinationHits: Map<string, number[]>;
  destinationTotals: Map<string, { n: number; until: number }>;
  /** Keyed by `idempotencyKey(apiKeyId, endpoint, key)`. */
  idempotency: Map<string, IdempotencyRecord>;
  /** Keyed by token hash. */
  consoleSignInTokens: Map<string, ConsoleSignInTokenRecord>;
  /** Keyed by session id hash. */
  consoleSessions: Map<string, ConsoleSessionRecord>;
  /** Tracked links, keyed by code. */
  links: Map<string, LinkRecord>;
  /** Suppression keys by organization. */
  suppressionKeys: Map<string, SuppressionKeyRecord>;
  /** Suppressions keyed by `[organization, channel, hash]` as JSON. */
  suppressions: Map<string, SuppressionRecord>;
  /** Inbound messages in the order they were stored. */
  inbound: InboundMessageRecord[];
  /** Sender assignments, oldest first. */
  senderAssignments: SenderAssignmentRecord[];
  /** What legs cost, keyed by `{message id} {channel}`. */
  prices: Map<string, MessagePriceRecord>;
}

/** A fresh, empty state. */
export function emptyState(): MemoryState {
  return {
    organizations: new Map(),
    settings: new Map(),
    profiles: new Map(),
    lastProfileSeq: 0,
    consentChanges: [],
    contactLists: new Map(),
    memberships: [],
    campaigns: new Map(),
    seqs: new Map(),
    lastSeq: 0,
    apiKeys: new Map(),
    messages: new Map(),
    events: [],
    webhooks: new Map(),
    deliveries: new Map(),
    attempts: [],
    rateLimitHits: new Map(),
    destinationHits: new Map(),
    destinationTotals: new Map(),
    idempotency: new Map(),
    consoleSignInTokens: new Map(),
    consoleSessions: new Map(),
    links: new Map(),
    suppressionKeys: new Map(),
    suppressions: new Map(),
    inbound: [],
    senderAssignments: [],
    prices: new Map(),
  };
}

/** A deep copy, so a transaction can work on a draft and callers never share stored objects. */
export const clone = <T>(value: T): T => structuredClone(value);

/** The map key of an idempotency record. */
export const idempotencyKey = (apiKeyId: string, endpoint: string, key: string): string =>
  JSON.stringify([apiKeyId, endpoint, key]);

/** Milliseconds of an ISO timestamp, for comparisons that must not depend on string form. */
export const ms = (iso: string): number => Date.parse(iso);

/**
 * Orders records oldest first by a timestamp, then by id; `Array.prototype.sort` is stable, so
 * records equal on both keep their insertion order.
 */
export function oldestFirst<T>(
  records: T[],
  at: (record: T) => string,
  id?: (record: T) => string,
): T[] {
  return [...records].sort((a, b) => {
    const byTime = ms(at(a)) - ms(at(b));
    if (byTime !== 0 || id === undefined) return byTime;
    const ia = id(a);
    const ib = id(b);
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
}

/** Orders records oldest first by `createdAt`, then by id. */
export const oldestCreatedFirst = <T extends { createdAt: string; id: string }>(
  records: Iterable<T>,
): T[] =>
  oldestFirst(
    [...records],
    (r) => r.createdAt,
    (r) => r.id,
  );

/** An organization's records, oldest first by `createdAt`, then by id. */
export const ofOrganization = <T extends { organizationId: string; createdAt: string; id: string }>(
  records: Iterable<T>,
  organizationId: string,
): T[] => oldestCreatedFirst([...records].filter((r) => r.organizationId === organizationId));

/** The record when it belongs to the organization; another organization's is not found. */
export const ownedBy = <T extends { organizationId: string }>(
  record: T | undefined,
  organizationId: string,
): T | null => (record?.organizationId === organizationId ? record : null);

/** Throws like a primary-key constraint would. */
export function assertNew(map: Map<string, unknown>, id: string, what: string): void {
  if (map.has(id)) throw new Error(`memory storage: duplicate ${what} id ${id}`);
}

/** Stores a copy of a new record under `key`, refusing a key already taken. */
export function storeNew<T>(map: Map<string, T>, key: string, record: T, what: string): void {
  assertNew(map, key, what);
  map.set(key, clone(record));
}

/** Appends a copy of a new record, refusing an id already taken. */
export function appendNew<T extends { id: string }>(list: T[], record: T, what: string): void {
  if (list.some((r) => r.id === record.id)) {
    throw new Error(`memory storage: duplicate ${what} id ${record.id}`);
  }
  list.push(clone(record));
}

/** Gives a newly inserted record the next insertion sequence. */
export function assignSeq(s: MemoryState, id: string): void {
  s.lastSeq += 1;
  s.seqs.set(id, s.lastSeq);
}

/**
 * The records with their sequence, newest first, below `beforeSeq` when given, at most
 * `limit`: what a newest-first page reads.
 */
export function newestFirst<T extends { id: string }>(
  s: MemoryState,
  records: Iterable<T>,
  beforeSeq: number | undefined,
  limit: number,
): Array<T & { seq: number }> {
  const sequenced: Array<T & { seq: number }> = [];
  for (const record of records) {
    const seq = s.seqs.get(record.id) ?? 0;
    if (beforeSeq === undefined || seq < beforeSeq) sequenced.push({ ...record, seq });
  }
  return sequenced.sort((a, b) => b.seq - a.seq).slice(0, limit);
}

/** Whether `createdAt` lies strictly between the bounds that are given. */
export const createdWithin = (
  createdAt: string,
  after: string | undefined,
  before: string | undefined,
): boolean =>
  (after === undefined || ms(createdAt) > ms(after)) &&
  (before === undefined || ms(createdAt) < ms(before));
