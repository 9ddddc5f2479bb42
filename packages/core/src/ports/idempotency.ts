/**
 * Idempotency keys and their stored responses.
 * The conventions every port follows are in `../ports.ts`.
 */

export interface IdempotencyRecord {
  /** The API key that made the request. */
  apiKeyId: string;
  /** Method and path, e.g. `POST /v1/messages/send`. */
  endpoint: string;
  key: string;
  /** A hash of the request body, to refuse a reuse with a different body. */
  requestHash: string;
  state: "in_progress" | "completed";
  response: StoredResponse | null;
  /**
   * While in progress: when the request counts as abandoned (its process died), so a retry with
   * the same body may resume it. It is also the holder's token: `markRecoveryPoint`, `complete`
   * and `release` act only for the holder. `null` once completed.
   */
  lockedUntil: string | null;
  /**
   * What the request committed, written in the same transaction as its work (for a send,
   * `message:<id>`), so a resumed retry answers from it instead of doing the work again.
   */
  recoveryPoint: string | null;
  createdAt: string;
  expiresAt: string;
}

/** What `IdempotencyRepository.begin` found. */
export type IdempotencyBegin =
  /** No live record: `record` is stored and the caller holds it. */
  | { outcome: "started" }
  /**
   * The record was in progress with the same request hash, and its lock had ended: the caller
   * now holds it, under the new `lockedUntil`. `record` is as stored after the takeover.
   */
  | { outcome: "resumed"; record: IdempotencyRecord }
  /** A live record that the caller does not get to hold: completed, held, or another body. */
  | { outcome: "exists"; record: IdempotencyRecord };

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface IdempotencyRepository {
  /**
   * Atomically starts a request (key: apiKeyId, endpoint, key). With no record, or an expired
   * one, stores `record` (state `in_progress`) and answers `started`. With an in-progress record
   * of the same `requestHash` whose `lockedUntil` is at or before `now`, takes it over: sets its
   * `lockedUntil` to `record.lockedUntil`, keeps everything else, and answers `resumed`. Otherwise
   * answers `exists` with the stored record and writes nothing. Of concurrent callers, at most
   * one starts or resumes.
   */
  begin(record: IdempotencyRecord, now: string): Promise<IdempotencyBegin>;
  /**
   * Sets the record's recovery point, only while `lockedUntil` is still the record's (the
   * caller holds it); `false` (nothing written) otherwise. Called inside the transaction of the
   * request's work, so the point commits with the work.
   */
  markRecoveryPoint(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    recoveryPoint: string,
  ): Promise<boolean>;
  /**
   * `markRecoveryPoint` for a storage that can carry the write with the transaction's next
   * statement or its COMMIT instead of waiting for its answer: when the caller no longer holds
   * the key, the transaction fails with `IdempotencyTakenOverError` (at the latest at its
   * commit) and writes nothing. Optional; without it the core calls `markRecoveryPoint`.
   */
  markRecoveryPointAtCommit?(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    recoveryPoint: string,
  ): Promise<void>;
  /** Stores the response of a started request (state `completed`), only for the holder. */
  complete(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    response: StoredResponse,
  ): Promise<void>;
  /** Forgets a started request (its answer is not to be replayed, e.g. a 5xx), only for the holder. */
  release(apiKeyId: string, endpoint: string, key: string, lockedUntil: string): Promise<void>;
}
