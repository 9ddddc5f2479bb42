import type { MessageCursor, OldMessagesDeleted } from "../ports.js";

/**
 * What one `deleteOldMessages` batch answers, the same for every storage: how many messages
 * went, and where the next batch starts, the last message looked at, unless fewer than
 * `limit` were left to look at (the walk reached the end).
 */
export function oldMessagesDeleted<T>(
  looked: readonly T[],
  limit: number,
  deleted: number,
  cursorOf: (message: T) => MessageCursor,
): OldMessagesDeleted {
  const last = looked.at(-1);
  return { deleted, next: looked.length === limit && last !== undefined ? cursorOf(last) : null };
}

/**
 * Whether retention must keep a message whatever its age: one still waiting for its release
 * (`scheduled`, or `releasing` until the release or the stale-release check ends it), or one
 * `sent` whose lifecycle is open until `expiresAt`. ISO times compare as text.
 */
export const stillOpen = (status: string, expiresAt: string, now: string): boolean =>
  status === "scheduled" || status === "releasing" || (status === "sent" && expiresAt > now);
