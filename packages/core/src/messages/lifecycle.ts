import type { Deps } from "../deps.js";
import type {
  MessageError,
  MessageEventRecord,
  MessageRecord,
  MessageStatus,
  Topic,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { recordEvent } from "../webhooks/outbox.js";

/** How far along the way to the reader a status is; failed and expired end the way. */
const PROGRESS: Record<MessageStatus, number> = {
  sent: 0,
  delivered: 1,
  seen: 2,
  clicked: 3,
  failed: Number.NaN,
  expired: Number.NaN,
};

/** Failed and expired are final: nothing follows them. */
const isFinal = (status: MessageStatus): boolean => status === "failed" || status === "expired";

/**
 * Whether the lifecycle may move from one status to another (docs/decisions.md "Lifecycle"):
 * sent → delivered → seen → clicked, forward only (a lost report may be skipped); only a
 * message not yet delivered can fail or expire; nothing leaves failed or expired. A move that
 * would go backwards or repeat a status is refused, and the report behind it is ignored.
 */
export function canAdvance(from: MessageStatus, to: MessageStatus): boolean {
  if (isFinal(from)) return false;
  if (isFinal(to)) return from === "sent";
  return PROGRESS[to] > PROGRESS[from];
}

/** The event topic that announces a status. */
const topicOf = (status: MessageStatus): Topic => `message.${status}`;

export type Advance =
  | { kind: "applied"; message: MessageRecord; event: MessageEventRecord }
  | { kind: "ignored"; message: MessageRecord }
  | { kind: "not_found" };

/** Concurrent writers of one message are few (the sender, a report, the sweep). */
const MAX_CONFLICTS = 10;

/**
 * Moves a message to `to` and records the event with its outbox deliveries in the same
 * transaction, or ignores the move when the lifecycle forbids it. The status is changed with
 * compare-and-set: when another writer moved the message first, the move is re-decided on the
 * fresh row. `error` is kept on the message only when it fails.
 */
export async function advanceMessage(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  messageId: string,
  to: MessageStatus,
  error: MessageError | null = null,
): Promise<Advance> {
  for (let attempt = 0; attempt < MAX_CONFLICTS; attempt += 1) {
    const outcome = await deps.storage.transaction(
      async (tx): Promise<Advance | { kind: "conflict" }> => {
        const current = await tx.messages.getById(messageId);
        if (!current) return { kind: "not_found" };
        if (!canAdvance(current.status, to)) return { kind: "ignored", message: current };
        const changes = {
          status: to,
          channel: current.channel,
          error: to === "failed" ? error : current.error,
          updatedAt: isoAt(deps.clock.now()),
        };
        if (!(await tx.messages.transition(messageId, current.status, changes))) {
          return { kind: "conflict" };
        }
        const message: MessageRecord = { ...current, ...changes };
        const event = await recordEvent(tx, deps, message, topicOf(to), changes.error);
        return { kind: "applied", message, event };
      },
    );
    if (outcome.kind !== "conflict") return outcome;
  }
  throw new Error(`message ${messageId}: status kept changing under ${MAX_CONFLICTS} attempts`);
}
