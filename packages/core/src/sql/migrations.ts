/**
 * What both SQL adapters' migration runners share: how a list of migrations is ordered, which
 * of them are pending against the version a database records, the refusal of a database that
 * newer code migrated, and the answer a run gives. Each adapter supplies what differs: how a
 * migration is written (a script, or statements), how the recorded version is read and how
 * the runs of two processes are kept apart (a write lock, an advisory lock).
 */

/** One schema change: applied once, in `version` order, recorded in `schema_migrations`. */
export interface SchemaChange {
  version: number;
  name: string;
}

/**
 * The schema's versions, oldest first, and what each one changes: the same history on both
 * databases, so a version number means the same tables everywhere. Each is keyed by the name
 * under which every adapter exports its change (from its `migrations/index.ts`), so the order
 * is written here once. Never edit a released one: add a new one, and its change to each
 * adapter.
 */
export const SCHEMA_VERSIONS = {
  initialSchema: "initial schema",
  retentionIndexes: "retention indexes",
  consoleSchema: "console sessions and api key names",
  operatorApiSchema: "operator api",
  fairDeliverySchema: "fair delivery",
  rateLimitCounts: "rate limit counts",
  sentMessagesExpiry: "expiry index of sent messages only",
  apiKeyChangeNotices: "api key change notices",
  rateLimitCountsKept: "rate limit counts kept per key",
  messageProviderLegs: "provider legs of messages, their SMS fallback jobs and sms_sender",
  sendLookupNotices: "change notices of campaigns and webhook subscriptions",
  trackedLinks: "tracked links and campaigns' track_links",
  rateLimitRecountOnce: "rate limit counts recounted once per window",
  recoveryPointGuard: "a guard that fails a taken-over request's transaction",
  deliveriesFillfactor: "room on the pages of deliveries for their leases",
  rateLimitRecountOnEvidence: "rate limit counts recounted at once when plainly wrong",
  consentLoop: "suppressions, inbound messages, sender assignments and consent sources",
  abuseProtection: "organization settings, destination counters and campaigns' allowed countries",
  sendingWindows: "sending windows, profiles' time zones and scheduled messages",
  messagePrices: "what each leg of a message cost, as its provider reported it",
  sendPathCosts: "rate-limit hits unlogged, no message index by number and sender",
  smsLegSentFrom: "the sender each SMS leg actually went out from, for inbound ownership",
  consentChangeNotes: "the note of a consent change: why a suppression was added or lifted",
  suppressionKnownNumbers: "the profile and inbound message that gave a suppression its number",
  messageLegNotes: "what each leg's hand-off noted: the failover before it, a clamped TTL",
  sendHitShorter: "a send's counting skips deleted hits and takes no lock for a total",
} as const;

/** One database's change for each of `SCHEMA_VERSIONS`, under the same key. */
export type SchemaChanges<C> = { readonly [K in keyof typeof SCHEMA_VERSIONS]: C };

/**
 * Each of `SCHEMA_VERSIONS`, numbered from 1 in order, with the change that makes it in one
 * database's terms under `key`: one change per version, checked complete by the compiler.
 */
function schemaHistory<K extends string, C>(
  key: K,
  changes: SchemaChanges<C>,
): Array<SchemaChange & Record<K, C>> {
  const versions = Object.entries(SCHEMA_VERSIONS) as Array<[keyof typeof SCHEMA_VERSIONS, string]>;
  return versions.map(
    ([change, name], index) =>
      ({ version: index + 1, name, [key]: changes[change] }) as SchemaChange & Record<K, C>,
  );
}

/** What a migration run answers. */
export interface MigrateResult {
  /** The versions applied by this call, in order (empty when the schema was up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

/** The database was migrated by newer code; running older code against it could corrupt it. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
    /** The package whose code is older than the database, named in the message. */
    readonly packageName = "Tidings",
  ) {
    super(
      `The database schema is at version ${databaseVersion}, newer than the ${codeVersion} this ` +
        `version of ${packageName} knows. Upgrade Tidings; refusing to use the database.`,
    );
  }
}

/** The newest version among `migrations` (0 for none): the version the code writes. */
const latestVersion = (migrations: readonly SchemaChange[]): number =>
  migrations.reduce((version, migration) => Math.max(version, migration.version), 0);

/**
 * The migrations of `known` that a database at version `recorded` still needs, oldest first.
 * Throws `SchemaTooNewError` when the database is past every known version.
 */
function pendingMigrations<M extends SchemaChange>(
  known: readonly M[],
  recorded: number,
  packageName: string,
): M[] {
  const codeVersion = latestVersion(known);
  if (recorded > codeVersion) throw new SchemaTooNewError(recorded, codeVersion, packageName);
  return known
    .filter((migration) => migration.version > recorded)
    .sort((a, b) => a.version - b.version);
}

/** The table that records each applied migration, named `name`, the same on both databases. */
const recordTable = (name: string): string =>
  `CREATE TABLE IF NOT EXISTS ${name} ` +
  "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)";

/** The history both SQL adapters migrate along, and the rules their runners share. */
export const schemaMigrations = {
  history: schemaHistory,
  latest: latestVersion,
  pending: pendingMigrations,
  recordTable,
};
