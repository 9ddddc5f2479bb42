import { randomUUID } from "node:crypto";
import type { DeliveryRecord } from "../ports.js";
import { isoAt } from "../shared/clock.js";
import { type AttemptDeps, type AttemptReport, attemptDelivery } from "./attempt-delivery.js";
import { destinationKey } from "./delivery-destination.js";

/** One line of the engine's log. */
export type DeliveryLogEntry =
  | ({ event: "attempt" } & AttemptReport)
  /** A held delivery whose lease ran too short to start safely; it is claimed again later. */
  | { event: "released"; deliveryId: string; reason: string }
  | { event: "error"; stage: "claim" | "attempt"; deliveryId?: string | undefined; error: string };

export interface DeliveryEngineOptions {
  /** The lease owner name; unique per engine (default: a random UUID). */
  owner?: string | undefined;
  /** Attempts in flight at once, overall (16). */
  concurrency?: number | undefined;
  /** Attempts in flight at once per destination (2). */
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

/** Room a lease must still have, beyond the webhook timeout, for an attempt to start. */
const LEASE_MARGIN_MS = 5_000;
/** Claims per pass: enough to look past one saturated destination's backlog, bounded per poll. */
const MAX_CLAIMS_PER_PASS = 16;

/**
 * The webhook delivery engine. It claims due deliveries as leases and runs their attempts with
 * bounded concurrency, overall and per destination. A claimed delivery whose destination is busy
 * waits in a short per-destination queue; beyond that it is left leased and unstarted, which
 * keeps it out of the next claims until the lease ends, so later claims reach other
 * destinations and one slow receiver cannot starve the rest.
 */
export function createDeliveryEngine(
  deps: AttemptDeps,
  options: DeliveryEngineOptions = {},
): DeliveryEngine {
  const owner = options.owner ?? `engine-${randomUUID()}`;
  const concurrency = options.concurrency ?? 16;
  const perDestination = options.perDestination ?? 2;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const log = options.logger ?? (() => undefined);
  const random = options.random ?? Math.random;
  if (leaseMs <= deps.config.webhookTimeoutMs + LEASE_MARGIN_MS) {
    throw new RangeError(
      `leaseMs (${leaseMs}) must exceed the webhook timeout plus ${LEASE_MARGIN_MS} ms.`,
    );
  }

  const inFlight = new Set<Promise<void>>();
  const runningPer = new Map<string, number>();
  const waiting = new Map<string, DeliveryRecord[]>();
  let attemptsMade = 0;
  let started = false;
  let stopping = false;
  let loop: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let pass: Promise<void> | null = null;

  const canStartNow = (delivery: DeliveryRecord): boolean => {
    const expires = delivery.leaseExpiresAt === null ? 0 : Date.parse(delivery.leaseExpiresAt);
    return deps.clock.now() + deps.config.webhookTimeoutMs + LEASE_MARGIN_MS <= expires;
  };

  const run = (key: string, delivery: DeliveryRecord): void => {
    runningPer.set(key, (runningPer.get(key) ?? 0) + 1);
    const task = attemptDelivery(deps, delivery, owner, random)
      .then((report) => log({ event: "attempt", ...report }))
      .catch((cause: unknown) =>
        log({ event: "error", stage: "attempt", deliveryId: delivery.id, error: String(cause) }),
      )
      .finally(() => {
        attemptsMade += 1;
        inFlight.delete(task);
        runningPer.set(key, (runningPer.get(key) ?? 1) - 1);
        startWaiting();
        // A slot is free: look for more due work without waiting for the poll.
        if (started && !stopping) wake();
      });
    inFlight.add(task);
  };

  /** Starts held deliveries whose destination has room, dropping those whose lease ran short. */
  const startWaiting = (): void => {
    for (const [key, queue] of waiting) {
      while (queue.length > 0 && (runningPer.get(key) ?? 0) < perDestination) {
        if (!stopping && inFlight.size >= concurrency) return;
        const next = queue.shift() as DeliveryRecord;
        if (stopping) release(next, "engine stopping");
        else if (!canStartNow(next)) release(next, "lease too short to start");
        else run(key, next);
      }
      if (queue.length === 0) waiting.delete(key);
    }
  };

  const release = (delivery: DeliveryRecord, reason: string): void =>
    log({ event: "released", deliveryId: delivery.id, reason });

  /** Places one claimed delivery: start it, hold it for its destination, or leave it leased. */
  const place = (delivery: DeliveryRecord): void => {
    const key = destinationKey(delivery.destination);
    if ((runningPer.get(key) ?? 0) < perDestination && inFlight.size < concurrency) {
      run(key, delivery);
      return;
    }
    const queue = waiting.get(key) ?? [];
    if (queue.length < perDestination) {
      queue.push(delivery);
      waiting.set(key, queue);
      return;
    }
    release(delivery, "destination busy");
  };

  /** Claims while there are free slots and the claims keep coming back full. */
  const claimPass = async (): Promise<void> => {
    for (let i = 0; i < MAX_CLAIMS_PER_PASS && !stopping; i++) {
      const free = concurrency - inFlight.size;
      if (free <= 0) return;
      const now = deps.clock.now();
      const due = await deps.storage.deliveries.nextDueAt();
      if (due === null || Date.parse(due) > now) return;
      const claimed = await deps.storage.deliveries.claimDue(isoAt(now), free, owner, leaseMs);
      for (const delivery of claimed) place(delivery);
      if (claimed.length < free) return;
    }
    // Stopped at the bound with claims still coming back full: go on without waiting a poll.
    wake();
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
      startWaiting();
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
