import type { Deps } from "../deps.js";
import type {
  MessageError,
  MessageEventRecord,
  MessageRecord,
  MessageStatus,
  Repositories,
  Topic,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { recordEvent } from "../webhooks/outbox.js";

/** How far along the way to the reader a status is; failed and expired end the way. */
const PROGRESS: Record<MessageStatus, number> = {
  // Held, being released or withdrawn: outside the way to the reader; the schedule moves them.
  scheduled: Number.NaN,
  releasing: Number.NaN,
  cancelled: Number.NaN,
  sent: 0,
  delivered: 1,
  seen: 2,
  clicked: 3,
  failed: Number.NaN,
  expired: Number.NaN,
};

/** Every status, in the order of the way to the reader. */
const STATUSES = Object.keys(PROGRESS) as MessageStatus[];

/** Failed and expired are final: nothing follows them. */
const isFinal = (status: MessageStatus): boolean => status === "failed" || status === "expired";

/** Statuses only the schedule (release and cancel) moves into or out of, never a report. */
const isHeld = (status: MessageStatus): boolean =>
  status === "scheduled" || status === "releasing" || status === "cancelled";

/**
 * Whether the lifecycle may move from one status to another (docs/decisions.md "Lifecycle"):
 * sent → delivered → seen → clicked, forward only (a lost report may be skipped); only a
 * message not yet delivered can fail or expire; nothing leaves failed or expired. A move that
 * would go backwards or repeat a status is refused, and the report behind it is ignored.
 */
export function canAdvance(from: MessageStatus, to: MessageStatus): boolean {
  if (isHeld(from) || isHeld(to) || isFinal(from)) return false;
  if (isFinal(to)) return from === "sent";
  return PROGRESS[to] > PROGRESS[from];
}

/** The event topic that announces a status. */
const topicOf = (status: MessageStatus): Topic | null =>
  status === "scheduled" || status === "releasing" ? null : `message.${status}`;

export type Advance =
  | { kind: "applied"; message: MessageRecord; event: MessageEventRecord }
  | { kind: "ignored"; message: MessageRecord }
  | { kind: "not_found" };

/**
 * Moves a message to `to` and records the event with its outbox deliveries in the same
 * transaction, or ignores the move when the lifecycle forbids it. The move is one conditional
 * write from every status `to` may follow, so when another writer moved the message first the
 * storage decides on the fresh row, with no read before and no retry. `error` is kept on the
 * message only when it fails.
 */
export async function advanceMessage(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  messageId: string,
  to: MessageStatus,
  error: MessageError | null = null,
): Promise<Advance> {
  return deps.storage.transaction((tx) => advanceWithin(tx, deps, messageId, to, error));
}

/**
 * `advanceMessage` inside the caller's transaction `tx`, so another write (a click's count)
 * commits with the move and its event, or neither does.
 */
export async function advanceWithin(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  messageId: string,
  to: MessageStatus,
  error: MessageError | null = null,
): Promise<Advance> {
  const from = STATUSES.filter((status) => canAdvance(status, to));
  // Only a failure carries its reason; any other move keeps the stored error.
  const reason = to === "failed" ? { error } : {};
  const changes = { status: to, ...reason, updatedAt: isoAt(deps.clock.now()) };
  const message = await tx.messages.advance(messageId, from, changes);
  if (message === null) {
    // Nothing moved: the message is unknown, or its status may not be followed by `to`.
    const current = await tx.messages.getById(messageId);
    return current === null ? { kind: "not_found" } : { kind: "ignored", message: current };
  }
  const topic = topicOf(to);
  // canAdvance refuses every move into a held status, so nothing was written for those.
  if (topic === null) throw new Error(`No report moves a message to ${to}.`);
  const event = await recordEvent(tx, deps, message, topic, message.error);
  return { kind: "applied", message, event };
}
