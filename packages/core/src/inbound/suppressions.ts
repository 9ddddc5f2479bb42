import { err, ok, type Result, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, notFound, type ValidationError, validationError } from "../errors.js";
import type { Channel, InboundMessageRecord, SuppressionRecord } from "../ports.js";
import { phoneNumber } from "../profiles/profile-input.js";
import { DEFAULT_PAGE_SIZE, type Page, pageLimit } from "../support/page.js";
import { parseInput, toIssues } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { optIn, optOut } from "./consent-effects.js";
import { existingSuppressionKey, phoneHash, suppressionKey } from "./suppression-keys.js";

/**
 * A suppression as the API shows it: the number only where the filter, a profile or a kept
 * inbound message gives it.
 */
export interface SuppressionView {
  channel: Channel;
  phone_number: string | null;
  phone_number_hash: string;
  source: SuppressionRecord["source"];
  keyword: string | null;
  provider: string | null;
  note: string | null;
  created_at: string;
}

/** An inbound message as the API shows it. */
export interface InboundMessageView {
  inbound_id: string;
  channel: Channel;
  from: string;
  to: string;
  text: string;
  keyword_class: InboundMessageRecord["keywordClass"];
  public_id: string | null;
  provider: string;
  received_at: string;
}

/** A stored suppression as the API shows it, with its number where the caller knows it. */
const suppressionView = (row: SuppressionRecord, number: string | null): SuppressionView => ({
  channel: row.channel,
  phone_number: number,
  phone_number_hash: row.phoneHash,
  source: row.source,
  keyword: row.keyword,
  provider: row.provider,
  note: row.note,
  created_at: row.createdAt,
});

export const toInboundView = (m: InboundMessageRecord): InboundMessageView => ({
  inbound_id: m.id,
  channel: m.channel,
  from: m.fromNumber,
  to: m.toSender,
  text: m.text,
  keyword_class: m.keywordClass,
  public_id: m.profileId,
  provider: m.provider,
  received_at: m.receivedAt,
});

const channel = v.picklist(["sms", "viber"] as const, "must be sms or viber.");
const note = v.pipe(
  v.string("must be a string."),
  v.trim(),
  v.nonEmpty("must not be empty."),
  v.maxLength(500, "must be at most 500 characters."),
);

/** The cursor of an id-ordered page: the last id, base64url. */
const encodeIdCursor = (id: string) => Buffer.from(id).toString("base64url");
function decodeIdCursor(cursor: string | undefined): Result<string | undefined, ValidationError> {
  if (cursor === undefined) return ok(undefined);
  const id = /^[A-Za-z0-9_-]{1,80}$/.test(cursor)
    ? Buffer.from(cursor, "base64url").toString("utf8")
    : "";
  if (/^[0-9a-f-]{36}$/.test(id) && encodeIdCursor(id) === cursor) return ok(id);
  return err(
    validationError(
      [{ path: "cursor", message: "is not a cursor from a previous page.", rule: "cursor" }],
      "The cursor is invalid.",
      "invalid_cursor",
    ),
  );
}

function pageOf<T, R extends { id: string }>(
  rows: R[],
  size: number,
  view: (row: R) => T,
): Page<T> {
  const page = rows.slice(0, size);
  const hasMore = rows.length > size;
  const last = page.at(-1);
  return {
    data: page.map(view),
    meta: { has_more: hasMore, next_cursor: hasMore && last ? encodeIdCursor(last.id) : null },
  };
}

/** GET /v1/suppressions query parameters. */
export const listSuppressionsQuery = v.strictObject(
  {
    channel: v.optional(channel),
    phone_number: v.optional(phoneNumber("must be a string.")),
    limit: v.optional(pageLimit),
    cursor: v.optional(v.string()),
  },
  "only channel, phone_number, limit and cursor are allowed.",
);

/**
 * The numbers a page of suppressions is of, where the organization still knows them, by hash.
 * The number is never stored: each suppression names the profile that had it and the inbound
 * message that asked for it, and a number counts only while that profile still has it or that
 * message is kept (an erased one has none). Reads those profiles and messages and hashes their
 * numbers: at most two per suppression of the page, never the whole organization.
 */
async function knownNumbers(
  storage: Deps["storage"],
  key: Buffer,
  organizationId: string,
  rows: readonly SuppressionRecord[],
): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  const learn = (number: string) => {
    if (number !== "") known.set(phoneHash(key, number), number);
  };
  const profileIds = new Set(
    rows.flatMap((row) => (row.profileId === null ? [] : [row.profileId])),
  );
  for (const id of profileIds) {
    const profile = await storage.profiles.get(organizationId, id);
    if (profile !== null) learn(profile.phoneNumber);
  }
  const inboundIds = rows.flatMap((row) => (row.inboundId === null ? [] : [row.inboundId]));
  for (const message of await storage.inbound.getMany(organizationId, inboundIds)) {
    learn(message.fromNumber);
  }
  return known;
}

/** The organization's suppressions, newest first. */
export function listSuppressions(
  deps: Pick<Deps, "storage" | "secretBox">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<SuppressionView>, DomainError> {
  return useCase("listSuppressions", async () => {
    const parsed = v.safeParse(listSuppressionsQuery, query, { abortEarly: false });
    if (!parsed.success) return err(validationError(toIssues(parsed.issues)));
    const before = decodeIdCursor(parsed.output.cursor);
    if (before.isErr()) return err(before.error);
    const size = parsed.output.limit ?? DEFAULT_PAGE_SIZE;
    const org = actor.organizationId;
    const key = await existingSuppressionKey(deps.storage, deps.secretBox, org);
    const wanted = parsed.output.phone_number;
    if (key === null) return ok({ data: [], meta: { has_more: false, next_cursor: null } });
    const rows = await deps.storage.suppressions.list({
      organizationId: org,
      channel: parsed.output.channel,
      phoneHash: wanted === undefined ? undefined : phoneHash(key, wanted),
      beforeId: before.value,
      limit: size + 1,
    });
    const known = await knownNumbers(deps.storage, key, org, rows.slice(0, size));
    if (wanted !== undefined) known.set(phoneHash(key, wanted), wanted);
    return ok(pageOf(rows, size, (row) => suppressionView(row, known.get(row.phoneHash) ?? null)));
  });
}

/** POST /v1/suppressions body. */
export const addSuppressionInput = v.strictObject(
  {
    channel,
    phone_number: phoneNumber("is required."),
    note: v.optional(v.nullable(note)),
  },
  "only channel, phone_number and note are allowed.",
);

/** Adds a suppression by API (source `api`): the number's consent on the channel turns off. */
export function addSuppression(
  deps: Pick<Deps, "storage" | "secretBox" | "ids" | "clock" | "telemetry">,
  actor: Actor,
  input: unknown,
): ResultAsync<SuppressionView, DomainError> {
  return useCase("addSuppression", async () => {
    const parsed = parseInput(addSuppressionInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { channel: on, phone_number, note: text } = parsed.value;
    const org = actor.organizationId;
    const key = await suppressionKey(deps, org);
    const effect = await deps.storage.transaction((tx) =>
      optOut(tx, deps, key, org, on, phone_number, {
        source: actor.via ?? "api",
        keyword: null,
        provider: null,
        note: text ?? null,
        apiKeyId: actor.apiKeyId,
      }),
    );
    if (effect.suppressionChanged) deps.telemetry?.suppressionAdded?.("api");
    const stored = (
      await deps.storage.suppressions.forNumber(org, phoneHash(key, phone_number))
    ).find((s) => s.channel === on);
    if (stored === undefined) throw new Error("A suppression just added was not found.");
    return ok(suppressionView(stored, phone_number));
  });
}

/** DELETE /v1/suppressions/{channel}/{phone_number}: the path and query together. */
export const removeSuppressionInput = v.strictObject(
  { channel, phone_number: phoneNumber("is required."), note: v.optional(note) },
  "only channel, phone_number and note are allowed.",
);

/**
 * Lifts a suppression. One a person asked for (source `inbound` or `provider`) needs a `note`
 * saying why; the consent is not restored (the integrator sets it again by PATCH).
 */
export function removeSuppression(
  deps: Pick<Deps, "storage" | "secretBox" | "ids" | "clock">,
  actor: Actor,
  input: unknown,
): ResultAsync<null, DomainError> {
  return useCase("removeSuppression", async () => {
    const parsed = parseInput(removeSuppressionInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { channel: on, phone_number, note: text } = parsed.value;
    const org = actor.organizationId;
    const key = await existingSuppressionKey(deps.storage, deps.secretBox, org);
    const missing = notFound("suppression", `${on}/${phone_number}`, "suppression_not_found");
    if (key === null) return err(missing);
    const found = (
      await deps.storage.suppressions.forNumber(org, phoneHash(key, phone_number))
    ).find((s) => s.channel === on);
    if (found === undefined) return err(missing);
    if (found.source !== "api" && text === undefined) {
      return err(
        validationError(
          [
            {
              path: "note",
              rule: "required",
              message: `is required to lift a suppression the person asked for (source ${found.source}).`,
            },
          ],
          "A note is required to lift this suppression.",
        ),
      );
    }
    await deps.storage.transaction((tx) =>
      optIn(
        tx,
        deps,
        key,
        org,
        on,
        phone_number,
        {
          source: actor.via ?? "api",
          keyword: null,
          provider: null,
          note: text ?? null,
          apiKeyId: actor.apiKeyId,
        },
        ["api", "inbound", "provider"],
        false,
      ),
    );
    return ok(null);
  });
}

/** GET /v1/inbound query parameters. */
export const listInboundQuery = v.strictObject(
  {
    channel: v.optional(channel),
    phone_number: v.optional(phoneNumber("must be a string.")),
    limit: v.optional(pageLimit),
    cursor: v.optional(v.string()),
  },
  "only channel, phone_number, limit and cursor are allowed.",
);

/** The organization's inbound messages, newest first. */
export function listInbound(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<InboundMessageView>, DomainError> {
  return useCase("listInbound", async () => {
    const parsed = v.safeParse(listInboundQuery, query, { abortEarly: false });
    if (!parsed.success) return err(validationError(toIssues(parsed.issues)));
    const before = decodeIdCursor(parsed.output.cursor);
    if (before.isErr()) return err(before.error);
    const size = parsed.output.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await deps.storage.inbound.list({
      organizationId: actor.organizationId,
      channel: parsed.output.channel,
      fromNumber: parsed.output.phone_number,
      beforeId: before.value,
      limit: size + 1,
    });
    return ok(pageOf(rows, size, toInboundView));
  });
}

/** Which channels suppress a profile's number, for the profile view. */
export async function profileSuppressed(
  deps: Pick<Deps, "storage" | "secretBox">,
  organizationId: string,
  phone: string,
): Promise<{ viber: boolean; sms: boolean }> {
  const key = await existingSuppressionKey(deps.storage, deps.secretBox, organizationId);
  if (key === null) return { viber: false, sms: false };
  const found = await deps.storage.suppressions.forNumber(organizationId, phoneHash(key, phone));
  return {
    viber: found.some((s) => s.channel === "viber"),
    sms: found.some((s) => s.channel === "sms"),
  };
}

/** How many profiles or inbound messages an export reads at once. */
const EXPORT_BATCH = 500;

/**
 * Every suppression of the organization, newest first, for an export: the number is never
 * stored, so each carries it where the organization still knows it — one of its active
 * profiles has it, or an inbound message kept by retention came from it — else only its hash.
 * Reads every profile and inbound message of the organization once, in batches.
 */
export async function exportSuppressions(
  deps: Pick<Deps, "storage" | "secretBox">,
  organizationId: string,
): Promise<SuppressionView[]> {
  const { storage } = deps;
  const key = await existingSuppressionKey(storage, deps.secretBox, organizationId);
  if (key === null) return [];
  const known = new Map<string, string>();
  const learn = (number: string) => known.set(phoneHash(key, number), number);
  for (let afterSeq: number | undefined; ; ) {
    const profiles = await storage.profiles.list({ organizationId, afterSeq, limit: EXPORT_BATCH });
    for (const profile of profiles) learn(profile.phoneNumber);
    if (profiles.length < EXPORT_BATCH) break;
    afterSeq = profiles.at(-1)?.seq;
  }
  for (let beforeId: string | undefined; ; ) {
    const messages = await storage.inbound.list({ organizationId, beforeId, limit: EXPORT_BATCH });
    for (const message of messages) learn(message.fromNumber);
    if (messages.length < EXPORT_BATCH) break;
    beforeId = messages.at(-1)?.id;
  }
  const all: SuppressionView[] = [];
  for (let beforeId: string | undefined; ; ) {
    const rows = await storage.suppressions.list({ organizationId, beforeId, limit: EXPORT_BATCH });
    all.push(...rows.map((row) => suppressionView(row, known.get(row.phoneHash) ?? null)));
    if (rows.length < EXPORT_BATCH) return all;
    beforeId = rows.at(-1)?.id;
  }
}
