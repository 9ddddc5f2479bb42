import { ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import type { DomainError, Issue } from "../errors.js";
import type { ProfileRecord, ProfileSource, Repositories } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { toIssues } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { withinAttributeLimit } from "./attributes.js";
import { withFieldChanges } from "./changed-profile.js";
import { recordConsentChanges } from "./consent-history.js";
import { withSuppressed } from "./get-profile.js";
import { type NewProfileInput, newProfile } from "./new-profile.js";
import { createProfileInput } from "./profile-input.js";

/** What an import did; rows are numbered by the caller (e.g. the file's line numbers). */
export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  rejected: Array<{ row: number; issues: Issue[] }>;
}

export interface ImportRow {
  /** Where the row came from, reported back with its issues (a line number). */
  row: number;
  data: unknown;
}

/**
 * Imports profiles from a connected store or a file (CLI `profiles import`): each valid row
 * creates the profile or, when an active profile already has its phone number, updates it, so
 * a re-run updates rather than duplicates. Invalid rows are reported and skipped. Everything
 * valid is written in one transaction: an interrupted import leaves nothing half-imported.
 * The store owns what it imports, so imported profiles take the import's `source`.
 *
 * The rows are written in phone-number order, not the file's: each write holds its number
 * until the import commits, and a database's concurrent writers of several numbers at once
 * (PostgreSQL's batched profile inserts) take them in that order too, so an import and a batch
 * that share numbers wait for each other instead of deadlocking. Each row is written once
 * whatever the order (a number appears once), so the summary is the same; the profiles one
 * import creates share their creation time and are listed in the order they were written.
 */
export function importProfiles(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">,
  actor: Actor,
  rows: Iterable<ImportRow>,
  options: { source: ProfileSource },
): ResultAsync<ImportSummary, DomainError> {
  return useCase("importProfiles", async () => {
    const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, rejected: [] };
    const valid: Array<{ row: number; input: v.InferOutput<typeof createProfileInput> }> = [];
    const firstRowOf = new Map<string, number>();
    for (const { row, data } of rows) {
      const parsed = v.safeParse(createProfileInput, data, { abortEarly: false });
      if (!parsed.success) {
        summary.rejected.push({ row, issues: toIssues(parsed.issues) });
        continue;
      }
      // A number twice in one file is a mistake in the file; the later rows are refused with
      // both line numbers rather than silently overwriting the first.
      const first = firstRowOf.get(parsed.output.phone_number);
      if (first !== undefined) {
        const issue = {
          path: "phone_number",
          message: `${parsed.output.phone_number} is also on line ${first}; each phone number may appear once in an import.`,
          rule: "duplicate_in_import",
        };
        summary.rejected.push({ row, issues: [issue] });
        continue;
      }
      firstRowOf.set(parsed.output.phone_number, row);
      valid.push({ row, input: parsed.output });
    }
    const now = isoAt(deps.clock.now());
    const created: ProfileRecord[] = [];
    await deps.storage.transaction(async (tx) => {
      created.length = 0;
      for (const { row, input } of inNumberOrder(valid)) {
        const existing = await profileOfRow(tx, deps, actor, input, options.source, now);
        if ("created" in existing) {
          created.push(existing.created);
          summary.created += 1;
          continue;
        }
        const next: ProfileRecord = {
          ...withFieldChanges(existing, input),
          source: options.source,
        };
        if (!withinAttributeLimit(next.attributes)) {
          summary.rejected.push({
            row,
            issues: [
              { path: "attributes", message: "would have more than 50 keys.", rule: "max_keys" },
            ],
          });
          continue;
        }
        if (
          JSON.stringify({ ...next, updatedAt: "" }) ===
          JSON.stringify({ ...existing, updatedAt: "" })
        ) {
          summary.unchanged += 1;
          continue;
        }
        next.updatedAt = now;
        await tx.profiles.update(next);
        await recordConsentChanges(tx, deps, actor, existing, next, "import");
        summary.updated += 1;
      }
    });
    // Numbers suppressed before their profiles came are listed with them from now on.
    for (let i = 0; i < created.length; i += LINK_BATCH) {
      await withSuppressed(deps, actor.organizationId, created.slice(i, i + LINK_BATCH), true);
    }
    summary.rejected.sort((a, b) => a.row - b.row);
    return ok(summary);
  });
}

/** How many times a row looks its number up and inserts it before the import gives up. */
const ROW_TRIES = 3;

/** How many created profiles one read of suppressions looks at, after the import. */
const LINK_BATCH = 500;

/**
 * The active profile holding the row's number, or `{ created }` once the row's own profile went
 * in. Another writer's profile with the number may commit after the lookup (the insert waits
 * for it and finds the number taken): the row then updates it, as it would have had the import
 * come later; and should that profile be gone again by the next lookup, the row tries again.
 * Past `ROW_TRIES` the import fails whole, having written nothing, and may simply be run again.
 */
async function profileOfRow(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock" | "secretBox">,
  actor: Actor,
  input: NewProfileInput,
  source: ProfileSource,
  now: string,
): Promise<ProfileRecord | { created: ProfileRecord }> {
  for (let tries = 0; tries < ROW_TRIES; tries += 1) {
    const existing = await tx.profiles.findByPhone(actor.organizationId, input.phone_number);
    if (existing) return existing;
    const inserted = await tx.profiles.insert(
      newProfile(deps, actor.organizationId, input, source, now),
    );
    if (inserted !== "phone_number_taken") {
      await recordConsentChanges(tx, deps, actor, null, inserted, "import");
      return { created: inserted };
    }
  }
  throw new Error(
    `${input.phone_number} was created and removed by other writers ${ROW_TRIES} times while this import ran; nothing was imported, run it again.`,
  );
}

/**
 * The rows sorted by phone number, compared by UTF-16 code units: for E.164 numbers (ASCII)
 * that is PostgreSQL's `COLLATE "C"` order, the order batched inserts take them in.
 */
function inNumberOrder<R extends { input: { phone_number: string } }>(rows: R[]): R[] {
  return [...rows].sort((a, b) =>
    a.input.phone_number < b.input.phone_number
      ? -1
      : a.input.phone_number > b.input.phone_number
        ? 1
        : 0,
  );
}
