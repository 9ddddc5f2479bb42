import { randomUUID } from "node:crypto";
import type { DeliveryRecord } from "../ports.js";
import { isoAt } from "../shared/clock.js";
import { type AttemptDeps, type AttemptReport, attemptDelivery } from "./attempt-delivery.js";

/** One line of the engine's log. */
export type DeliveryLogEntry =
  | ({ event: "attempt" } & AttemptReport)
  /**
   * No longer emitted: the engine claims only deliveries it can start at once, so none is ever
   * held back. Kept so existing log handlers still type-check.
   */
  | { event: "released"; deliveryId: string; reason: string }
  | { event: "error"; stage: "claim" | "attempt"; deliveryId?: string | undefined; error: string };

export interface DeliveryEngineOptions {
  /** The lease owner name; unique per engine (default: a random UUID). */
  owner?: string | undefined;
  /** Attempts in flight at once, overall (16). */
  concurrency?: number | undefined;
  /** Attempts in flight at once per destination (8). */
  perDestination?: number | undefined;
  /** How long a claim lasts (60 000 ms); must exceed the webhook timeout. */
  leaseMs?: number | undefined;
  /** How often an idle engine looks for due deliveries (1 000 ms). */
  pollMs?: number | undefined;
  logger?: ((entry: DeliveryLogEntry) => void) | undefined;
  /** Jitter source of the retry schedule (tests pin it). */
  random?: (() => number) | undefined;
}

export interface DeliveryEngine {
  /** Starts polling for due deliveries in the background. */
  start(): void;
  /** Stops claiming and resolves once every attempt in flight is recorded. */
  stop(): Promise<void>;
  /** Looks for due deliveries now instead of at the next poll (after a send, on NOTIFY). */
  wake(): void;
  /** Claims what is due and resolves, with the number of attempts made, once they are done. */
  runOnce(): Promise<number>;
}

/** Room a lease must have, beyond the webhook timeout, so an attempt ends before it expires. */
const LEASE_MARGIN_MS = 5_000;
/** Attempts in flight at once, overall. */
const DEFAULT_CONCURRENCY = 16;
/**
 * Attempts in flight at once per destination. Eight lets a healthy receiver that answers in
 * 100 ms take about 80 deliveries a second, while a receiver that hangs until the 15 s deadline
 * holds at most half of the 16 slots, so the others keep flowing.
 */
const DEFAULT_PER_DESTINATION = 8;

/**
 * The webhook delivery engine. It claims due deliveries as leases and runs their attempts with
 * bounded concurrency, overall and per destination. A claim passes over the destinations whose
 * slots are full and takes no more rows than it can start at once, so every claimed delivery
 * starts as soon as it is claimed, and one slow receiver's backlog cannot keep the others'
 * due deliveries waiting.
 */
export function createDeliveryEngine(
  deps: AttemptDeps,
  options: DeliveryEngineOptions = {},
): DeliveryEngine {
  const owner = options.owner ?? `engine-${randomUUID()}`;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perDestination = options.perDestination ?? DEFAULT_PER_DESTINATION;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const log = options.logger ?? (() => undefined);
  const random = options.random ?? Math.random;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency (${concurrency}) must be a positive integer.`);
  }
  if (!Number.isInteger(perDestination) || perDestination < 1) {
    throw new RangeError(`perDestination (${perDestination}) must be a positive integer.`);
  }
  if (leaseMs <= deps.config.webhookTimeoutMs + LEASE_MARGIN_MS) {
    throw new RangeError(
      `leaseMs (${leaseMs}) must exceed the webhook timeout plus ${LEASE_MARGIN_MS} ms.`,
    );
  }

  const inFlight = new Set<Promise<void>>();
  /** Attempts in flight per destination key; a destination with none has no entry. */
  const runningPer = new Map<string, number>();
  let attemptsMade = 0;
  let started = false;
  let stopping = false;
  let loop: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let pass: Promise<void> | null = null;

  const run = (delivery: DeliveryRecord): void => {
    const key = delivery.destinationKey;
    runningPer.set(key, (runningPer.get(key) ?? 0) + 1);
    const task = attemptDelivery(deps, delivery, owner, random)
      .then((report) => log({ event: "attempt", ...report }))
      .catch((cause: unknown) =>
        log({ event: "error", stage: "attempt", deliveryId: delivery.id, error: String(cause) }),
      )
      .finally(() => {
        attemptsMade += 1;
        inFlight.delete(task);
        const left = (runningPer.get(key) ?? 1) - 1;
        if (left > 0) runningPer.set(key, left);
        else runningPer.delete(key);
        // A slot is free: look for more due work without waiting for the poll.
        if (started && !stopping) wake();
      });
    inFlight.add(task);
  };

  /** The destinations whose slots are all taken: the next claim passes over their rows. */
  const saturated = (): string[] =>
    [...runningPer].filter(([, running]) => running >= perDestination).map(([key]) => key);

  /**
   * How many rows the next claim may take so that every one can start at once: no more than
   * the free slots overall, nor than the fewest free slots of any destination it may return,
   * since all the rows it returns may belong to that one destination.
   */
  const claimRoom = (): number => {
    let room = Math.min(concurrency - inFlight.size, perDestination);
    for (const running of runningPer.values()) {
      if (running < perDestination) room = Math.min(room, perDestination - running);
    }
    return room;
  };

  /**
   * Claims and starts due deliveries until the slots are full or nothing startable is due. Each
   * round either starts at least one attempt or ends the pass, so it ends within `concurrency`
   * rounds. Rows claimed while the engine stops are still attempted: `stop()` waits for them.
   */
  const claimPass = async (): Promise<void> => {
    // An idle engine only reads; a claim writes, which SQLite serializes across processes.
    const due = await deps.storage.deliveries.nextDueAt();
    if (due === null || Date.parse(due) > deps.clock.now()) return;
    while (!stopping) {
      const room = claimRoom();
      if (room <= 0) return;
      const claimed = await deps.storage.deliveries.claimDue(
        isoAt(deps.clock.now()),
        room,
        owner,
        leaseMs,
        { excludeDestinations: saturated() },
      );
      for (const delivery of claimed) run(delivery);
      if (claimed.length < room) return;
    }
  };

  /** One pass at a time, whoever asks (poll, wake, runOnce). */
  const runPass = (): Promise<void> => {
    pass ??= claimPass()
      .catch((cause: unknown) => log({ event: "error", stage: "claim", error: String(cause) }))
      .finally(() => {
        pass = null;
      });
    return pass;
  };

  const settle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };

  const sleep = (): Promise<void> => {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, pollMs);
    }).then(() => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      wakeUp = null;
      woken = false;
    });
  };

  // A wake that arrives mid-pass is remembered, so the loop goes round again at once.
  function wake(): void {
    woken = true;
    wakeUp?.();
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      loop = (async () => {
        while (!stopping) {
          await runPass();
          if (!stopping) await sleep();
        }
      })();
    },
    async stop() {
      stopping = true;
      wake();
      await loop;
      await pass;
      await settle();
      started = false;
      loop = null;
    },
    wake,
    async runOnce() {
      const before = attemptsMade;
      await runPass();
      await settle();
      if (!started) woken = false;
      return attemptsMade - before;
    },
  };
}
