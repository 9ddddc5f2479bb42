/**
 * The API key's rate limit and the per-destination send limits, counted together.
 * The conventions every port follows are in `../ports.ts`.
 */

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Hits left in the window after this one. */
  remaining: number;
  /**
   * Milliseconds until `remaining` next goes up: until the oldest counted hit leaves the window
   * (or, when more hits are counted than `limit` allows, enough of the oldest for one more to
   * fit). So when the hit was refused, the wait until one would be allowed. 0 only when no hit
   * is counted.
   */
  resetMs: number;
}

export interface RateLimitRepository {
  /**
   * Sliding-log rate limit: counts the hits on `key` after `now - windowMs`; when fewer than
   * `limit`, records this hit and allows it. Atomic: concurrent callers never both take the
   * last slot. A hit recorded with a later `now` counts too: callers (in any process) read
   * their clocks before they get the key, so the one served first may carry the later time.
   * Old hits may be pruned.
   */
  hit(key: string, now: number, windowMs: number, limit: number): Promise<RateLimitDecision>;
  /**
   * A send's hit on its API key's limit and on the limits of its destination, all at once:
   * every counter of `destinations` is checked first; when one is full, nothing is counted
   * anywhere (not even the key's hit) and the answer names it. Otherwise the key's hit is
   * made as `hit` makes it, and only when the key allows it is each destination counted too.
   * Atomic across callers and processes, like `hit`. Destination counts may be kept where a
   * crash forgets them (they only ever let a few more sends through).
   */
  hitSend(send: SendHits): Promise<SendHitDecision>;
}

/**
 * A counter of a send's destination: a number's or a prefix's sends in sliding windows
 * (`windows`), or a country's sends in a fixed period that ends at `until` (`total`).
 */
export type DestinationCounter =
  | {
      /** The counter's key, never a phone number in clear. */
      key: string;
      /** Sliding windows over the key's counted sends, each with its limit. */
      windows: ReadonlyArray<{ windowMs: number; limit: number }>;
    }
  | {
      /** The counter's key, the period's included (a new period starts a new key). */
      key: string;
      /** At most `limit` sends until `until` (ms), when the count may be forgotten. */
      total: { limit: number; until: number };
    };

/** What `RateLimitRepository.hitSend` counts. */
export interface SendHits {
  now: number;
  key: { key: string; windowMs: number; limit: number };
  destinations: readonly DestinationCounter[];
}

/** How `hitSend` decided. */
export type SendHitDecision =
  /** The key's decision; the destinations were counted when it allows the send. */
  | { refusedBy: null; key: RateLimitDecision }
  /** Destination `refusedBy` (its index) is full; nothing was counted; room again in `resetMs`. */
  | { refusedBy: number; resetMs: number };
