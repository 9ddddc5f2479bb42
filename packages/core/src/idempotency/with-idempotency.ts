import { err, ok, type Result } from "neverthrow";
import type { Deps } from "../deps.js";
import {
  type ConflictError,
  type DomainError,
  type IdempotencyMismatchError,
  validationError,
} from "../errors.js";
import type { IdempotencyRecord, Repositories, StoredResponse } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { wroteNothing } from "../support/storage-faults.js";
import { requestHash } from "./request-hash.js";

export interface IdempotentRequest {
  apiKeyId: string;
  /** Method and path, e.g. `POST /v1/messages/send`. */
  endpoint: string;
  /** The `Idempotency-Key` header as sent. */
  key: string;
  /** The parsed JSON body (`undefined` when there is none); see `requestHash`. */
  requestBody: unknown;
}

export interface IdempotentOutcome {
  response: StoredResponse;
  /** True when this is the stored answer of an earlier request, and nothing was run. */
  replayed: boolean;
}

/** 1–255 printable ASCII characters, like Stripe's keys (a UUID fits well). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** Whether a status's answer may be replayed: 401, 403, 429 and 5xx are not stored. */
export const isReplayable = (status: number): boolean =>
  status !== 401 && status !== 403 && status !== 429 && status < 500;

const keyReused = (): IdempotencyMismatchError => ({
  type: "idempotency_mismatch",
  code: "idempotency_key_reused",
  message: "This Idempotency-Key was already used with a different request body.",
});

const inProgress = (): ConflictError => ({
  type: "conflict",
  code: "idempotency_in_progress",
  message: "A request with this Idempotency-Key is still being processed; retry later.",
});

/**
 * Marks, inside the transaction of a request's work, what that work committed (for a send,
 * `message:<id>`). It throws when the key was taken over by a retry meanwhile (this request
 * ran past its lock), so the work rolls back rather than being done twice.
 */
export type Checkpoint = (tx: Repositories, recoveryPoint: string) => Promise<void>;

/** The answer to a request whose work committed at `recoveryPoint`; `null` if it cannot tell. */
export type Recover = (recoveryPoint: string) => Promise<StoredResponse | null>;

/**
 * Runs a request at most once per (API key, endpoint, key) within `config.idempotencyTtlMs`
 * (docs/decisions.md "Idempotency"). The same body again replays the stored answer without running
 * anything; another body is 422 `idempotency_key_reused`; while the first still runs, 409.
 * An answer that is not replayable (or a thrown `run`) releases the key for a retry, unless
 * the work may have committed (its checkpoint ran): then the key stays held until its lock
 * ends, and the retry that resumes it answers from the recovery point.
 *
 * A request whose process died keeps its key locked for `config.idempotencyLockMs`; after
 * that, a retry with the same body resumes it. If the dead request's work had committed (its
 * `checkpoint` did), the retry answers from `recover` and does nothing again; otherwise it
 * runs the request.
 */
export async function withIdempotency(
  deps: Pick<Deps, "storage" | "clock" | "config">,
  request: IdempotentRequest,
  run: (checkpoint: Checkpoint) => Promise<StoredResponse>,
  recover?: Recover,
): Promise<Result<IdempotentOutcome, DomainError>> {
  const { apiKeyId, endpoint, key } = request;
  if (!KEY_PATTERN.test(key)) {
    return err(
      validationError([
        {
          path: "Idempotency-Key",
          rule: "idempotency_key",
          message: "The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
        },
      ]),
    );
  }
  const now = deps.clock.now();
  const lockedUntil = isoAt(now + deps.config.idempotencyLockMs);
  const record: IdempotencyRecord = {
    apiKeyId,
    endpoint,
    key,
    requestHash: requestHash(request.requestBody),
    state: "in_progress",
    response: null,
    lockedUntil,
    recoveryPoint: null,
    createdAt: isoAt(now),
    expiresAt: isoAt(now + deps.config.idempotencyTtlMs),
  };
  const begun = await deps.storage.idempotency.begin(record, isoAt(now));
  if (begun.outcome === "exists") {
    const existing = begun.record;
    if (existing.requestHash !== record.requestHash) return err(keyReused());
    if (existing.state === "in_progress" || existing.response === null) return err(inProgress());
    return ok({ response: existing.response, replayed: true });
  }

  const repository = deps.storage.idempotency;
  const point = begun.outcome === "resumed" ? begun.record.recoveryPoint : null;
  const recovered = point !== null && recover !== undefined ? await recover(point) : null;
  if (recovered !== null) {
    await repository.complete(apiKeyId, endpoint, key, lockedUntil, recovered);
    return ok({ response: recovered, replayed: true });
  }

  let checkpointed = false;
  const checkpoint: Checkpoint = async (tx, recoveryPoint) => {
    const marks = tx.idempotency;
    if (marks.markRecoveryPointAtCommit !== undefined) {
      // Refused, it fails the transaction: the work rolls back as below, one round trip fewer.
      await marks.markRecoveryPointAtCommit(apiKeyId, endpoint, key, lockedUntil, recoveryPoint);
    } else if (
      !(await marks.markRecoveryPoint(apiKeyId, endpoint, key, lockedUntil, recoveryPoint))
    ) {
      throw new IdempotencyTakenOverError(key);
    }
    checkpointed = true;
  };
  let response: StoredResponse;
  try {
    response = await run(checkpoint);
  } catch (error) {
    // The work's transaction rolled back with the checkpoint; the retry that took over runs it.
    if (isIdempotencyTakenOver(error)) return err(inProgress());
    // Work that may have committed keeps the key held: a retry after the lock resumes it and
    // answers from the recovery point, rather than doing the work again. A failure that says
    // nothing was written (a transaction that never reached COMMIT, whose checkpoint went to
    // be written with it) releases it, so the retry runs at once.
    if (!checkpointed || wroteNothing(error)) {
      await repository.release(apiKeyId, endpoint, key, lockedUntil);
    }
    throw error;
  }
  if (isReplayable(response.status)) {
    await repository.complete(apiKeyId, endpoint, key, lockedUntil, response);
  } else if (!checkpointed) {
    await repository.release(apiKeyId, endpoint, key, lockedUntil);
  }
  return ok({ response, replayed: false });
}

/**
 * The request ran past its lock and a retry resumed its key: it must not commit its work. A
 * storage's `markRecoveryPointAtCommit` fails the transaction with it.
 */
export class IdempotencyTakenOverError extends Error {
  override readonly name = "IdempotencyTakenOverError";
  constructor(key?: string) {
    super(
      key === undefined
        ? "The Idempotency-Key was taken over by a retry."
        : `Idempotency-Key ${JSON.stringify(key)} was taken over by a retry.`,
    );
  }
}

/** An `IdempotencyTakenOverError`, also one made by another copy of @tidings/core. */
const isIdempotencyTakenOver = (error: unknown): boolean =>
  error instanceof IdempotencyTakenOverError ||
  (error instanceof Error && error.name === "IdempotencyTakenOverError");
