/**
 * Every port of the core, one file per aggregate under `ports/`. Adapters implement these; the core imports no adapter
 * (biome.json's `noRestrictedImports` refuses it).
 *
 * Conventions for every storage method:
 * - All ids are public ids (`prf_…`, `cmp_…`, `whk_…`, `key_…`, `org_…`, `lst_…`, UUID v7 for
 *   messages, events and deliveries). Every read and write is scoped by `organizationId`;
 *   a record of another organization is "not found" (`null` / `false`), never returned.
 * - Timestamps are ISO 8601 UTC strings with milliseconds and `Z`, supplied by the core's
 *   `Clock`; storage never reads the time itself unless a method says so.
 * - "Not found" is `null` for single reads and `false` for writes, never an exception.
 *   Exceptions mean the storage itself failed (I/O, corruption) and become 500s, except
 *   `StorageBusyError` (locked by another process) and `StorageUnavailableError` (out of
 *   reach, full, read-only), which the HTTP adapter answers with 503 and `Retry-After`.
 */

export type * from "./ports/access.js";
export type * from "./ports/campaigns.js";
export type * from "./ports/consent-loop.js";
export type * from "./ports/idempotency.js";
export type * from "./ports/messages.js";
export type * from "./ports/organizations.js";
export type * from "./ports/profiles.js";
export type * from "./ports/providers.js";
export type * from "./ports/rate-limits.js";
export type * from "./ports/retention.js";
export type * from "./ports/secrets.js";
export type * from "./ports/storage.js";
export type * from "./ports/time-and-ids.js";
export type * from "./ports/webhooks.js";
