import { randomUUID } from "node:crypto";
import type { ClaimStep, CompletedAttempt, DeliveryRecord, Repositories } from "../ports.js";
import { isoAt } from "../support/clock.js";
import {
  type AttemptDeps,
  type AttemptReport,
  type AttemptResult,
  attemptReport,
  makeAttempt,
} from "./attempt-delivery.js";
import { recordThenClaim } from "./claim-steps.js";
import {
  type DestinationReads,
  type ResolvedDestination,
  resolveDestination,
} from "./delivery-destination.js";
import {
  type AttemptSignal,
  DestinationHealth,
  type DestinationHealthOptions,
} from "./destination-health.js";
import { type DisabledSubscription, failingSubscriptions } from "./failing-subscriptions.js";
import { memoizedSecretBox } from "./memoized-secret-box.js";

/** One line of the engine's log. */
export type DeliveryLogEntry =
  | ({ event: "attempt" } & AttemptReport)
  | {
      /** A destination's circuit opened (it stopped answering) or closed (it answers again). */
      event: "circuit";
      /** The destination key: organization id and origin (scheme, host, port). */
      destination: string;
      state: "opened" | "closed";
    }
  /** A subscription was turned off: its attempts kept failing with no success. */
  | ({ event: "disabled" } & DisabledSubscription)
  | {
      event: "error";
      stage: "claim" | "attempt" | "record" | "health";
      deliveryId?: string | undefined;
      error: string;
    };

export interface DeliveryEngineOptions {
  /** The lease owner name; unique per engine (default: a random UUID). */
  owner?: string | undefined;
  /** Attempts in flight at once, overall (64). */
  concurrency?: number | undefined;
  /** Attempts in flight at once to one destination that answers (8). */
  perDestination?: number | undefined;
  /**
   * Attempts in flight at once, overall, to destinations that have not answered lately: new
   * ones, and those whose last attempt went unanswered (half of `concurrency`). The other half
   * is kept for destinations that answer, so no number of dead receivers holds them up.
   */
  unprovenConcurrency?: number | undefined;
  /** The circuit breaker's settings (see `DestinationHealth`). */
  circuit?: Omit<DestinationHealthOptions, "perDestination"> | undefined;
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
  /** Stops claiming and resolves once every attempt in flight is made and recorded. */
  stop(): Promise<void>;
  /** Looks for due deliveries now instead of at the next poll (after a send, on NOTIFY). */
  wake(): void;
  /**
   * Claims what is due and resolves, with the number of attempts made, once they are made and
   * recorded.
   */
  runOnce(): Promise<number>;
  /** How many destinations' circuits are open now (for metrics). */
  openCircuits(): number;
}

/** A claimed delivery with its destination as read in the claiming transaction. */
interface Claimed {
  delivery: DeliveryRecord;
  resolve: () => Promise<ResolvedDestination>;
}

/**
 * The two reads that resolve destinations, each answered once per id: a pass resolves all its
 * claimed deliveries, often many to one destination, through this.
 */
function readOnce(repositories: DestinationReads): DestinationReads {
  const subscriptions = new Map<string, ReturnType<Repositories["webhooks"]["getById"]>>();
  const keys = new Map<string, ReturnType<Repositories["apiKeys"]["get"]>>();
  const once = <T>(memo: Map<string, T>, id: string, read: () => T): T => {
    let answer = memo.get(id);
    if (answer === undefined) {
      answer = read();
      memo.set(id, answer);
    }
    return answer;
  };
  return {
    webhooks: {
      getById: (id) => once(subscriptions, id, () => repositories.webhooks.getById(id)),
    },
    apiKeys: {
      get: (id) => once(keys, id, () => repositories.apiKeys.get(id)),
    },
  };
}

/** What `completeAttempts` records of finished attempts. */
const completed = (batch: readonly AttemptResult[]): CompletedAttempt[] =>
  batch.map(({ delivery, attempt, next }) => ({ id: delivery.id, attempt, next }));

/** Room a lease must have, beyond the webhook timeout, so an attempt ends before it expires. */
const LEASE_MARGIN_MS = 5_000;
/**
 * The longest a finished attempt waits to be recorded, and its slot to be refilled, while other
 * attempts are still in flight; waiting lets one pass record and refill several at once.
 */
const FLUSH_DELAY_MS = 2;
/**
 * The longest that wait grows to: as long as the last pass took, up to this. A pass that costs
 * more than the attempts it serves (a database across a socket) then records and refills a full
 * round of attempts rather than the few that finished first, paying its cost once for them.
 */
const MAX_FLUSH_DELAY_MS = 20;
/** A finished attempt whose recording failed is kept only while its lease has this much left. */
const KEEP_MARGIN_MS = 1_000;
/** How often `settle` tries again to record attempts whose recording keeps failing. */
const SETTLE_RECORD_TRIES = 3;
/**
 * Attempts in flight at once, overall. An attempt in flight is a socket and a promise, so this
 * can be generous: it bounds what dead receivers can hold while live ones keep their share.
 */
const DEFAULT_CONCURRENCY = 64;
/**
 * Attempts in flight at once to one destination that answers. Eight lets a receiver that
 * answers in 100 ms take about 80 deliveries a second without being flooded.
 */
const DEFAULT_PER_DESTINATION = 8;

/**
 * The webhook delivery engine. It claims due deliveries as leases and runs their attempts with
 * bounded concurrency, overall and per destination (an organization and an origin). Claims are
 * fair between organizations and between destinations, take no more rows than can start at
 * once, and pass over the destinations whose slots are full, so every claimed delivery starts
 * as soon as it is claimed and no backlog keeps another's due deliveries waiting. Destinations
 * that do not answer share at most `unprovenConcurrency` slots, one attempt each, and after a
 * few unanswered attempts their circuit opens (see `DestinationHealth`): dead receivers cannot
 * take the slots of live ones. When a circuit closes, its destination's deliveries are due at
 * once. A subscription whose attempts have failed with no success for
 * `config.webhookDisableAfterMs` is turned off, its pending deliveries cancelled. Finished
 * attempts are recorded together, in one write with the next claim pass's claim, so
 * a busy engine writes once per pass rather than per attempt.
 */
export function createDeliveryEngine(
  engineDeps: AttemptDeps,
  options: DeliveryEngineOptions = {},
): DeliveryEngine {
  // Every attempt opens its destination's sealed secret; a rotation seals a new one.
  const deps = { ...engineDeps, secretBox: memoizedSecretBox(engineDeps.secretBox) };
  const owner = options.owner ?? `engine-${randomUUID()}`;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perDestination = options.perDestination ?? DEFAULT_PER_DESTINATION;
  const unprovenConcurrency =
    options.unprovenConcurrency ?? Math.max(1, Math.floor(concurrency / 2));
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
  if (!Number.isInteger(unprovenConcurrency) || unprovenConcurrency < 1) {
    throw new RangeError(
      `unprovenConcurrency (${unprovenConcurrency}) must be a positive integer.`,
    );
  }
  if (leaseMs <= deps.config.webhookTimeoutMs + LEASE_MARGIN_MS) {
    throw new RangeError(
      `leaseMs (${leaseMs}) must exceed the webhook timeout plus ${LEASE_MARGIN_MS} ms.`,
    );
  }

  const inFlight = new Set<Promise<void>>();
  /** Attempts in flight per destination key; a destination with none has no entry. */
  const runningPer = new Map<string, number>();
  /** Attempts made and not yet recorded; their rows stay leased to this engine meanwhile. */
  const finished: AttemptResult[] = [];
  /** Recordings under way; `settle` waits for them. */
  const recordings = new Set<Promise<boolean>>();
  const health = new DestinationHealth({ ...options.circuit, perDestination });
  /** Destinations whose circuit closed since the last pass: their backlog becomes due. */
  const reopened = new Set<string>();
  const subscriptions = failingSubscriptions(deps, (disabled) =>
    log({ event: "disabled", ...disabled }),
  );
  let attemptsMade = 0;
  let started = false;
  let stopping = false;
  let loop: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let pass: Promise<void> | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** How long a finished attempt waits for others to finish before a pass records it. */
  let flushDelayMs = FLUSH_DELAY_MS;
  let claimedLastPass = false;

  const isDue = (due: string | null): boolean =>
    due !== null && Date.parse(due) <= deps.clock.now();

  const run = ({ delivery, resolve }: Claimed): void => {
    const key = delivery.destinationKey;
    runningPer.set(key, (runningPer.get(key) ?? 0) + 1);
    const task = makeAttempt(deps, delivery, random, resolve)
      .then((result) => {
        finished.push(result);
        // An attempt that went nowhere (the destination is gone) says nothing of its receiver.
        if (result.url !== null) {
          const signal: AttemptSignal =
            result.attempt.statusCode === null ? "unreachable" : "answered";
          const change = health.record(key, signal, deps.clock.now());
          if (change !== null) log({ event: "circuit", destination: key, state: change });
          if (change === "closed") reopened.add(key);
        }
      })
      .catch((cause: unknown) =>
        log({ event: "error", stage: "attempt", deliveryId: delivery.id, error: String(cause) }),
      )
      .finally(() => {
        attemptsMade += 1;
        inFlight.delete(task);
        const left = (runningPer.get(key) ?? 1) - 1;
        if (left > 0) runningPer.set(key, left);
        else runningPer.delete(key);
        // A running engine records and refills once no attempt is in flight, or a moment after
        // the first one finished, so one pass (one write) serves several attempts: the cost of
        // a pass, not the wait, is what bounds a busy engine. Otherwise (runOnce, stopping) the
        // attempt is recorded now.
        if (!started || stopping) void record();
        else if (inFlight.size === 0) wake();
        else flushTimer ??= setTimeout(wake, flushDelayMs);
      });
    inFlight.add(task);
  };

  /**
   * Records `batch` through `repositories`: every attempt is logged, and its outcome applied only
   * while this engine still holds the lease (the answer says which).
   */
  const recordIn = async (
    repositories: Repositories,
    batch: AttemptResult[],
  ): Promise<boolean[]> =>
    batch.length === 0 ? [] : repositories.deliveries.completeAttempts(owner, completed(batch));

  const logRecorded = (batch: AttemptResult[], recorded: boolean[]): void => {
    for (const [i, result] of batch.entries()) {
      log({ event: "attempt", ...attemptReport(result, recorded[i] === true) });
    }
  };

  /**
   * Records `batch` in a transaction of its own; `false` when the write failed. The attempts
   * whose lease still holds go back to `finished`, to be recorded by a later pass; the others'
   * rows are another engine's to attempt again once the lease ends (same delivery id), so a
   * delivery is never lost, at worst sent twice.
   */
  const recordAlone = async (batch: AttemptResult[]): Promise<boolean> => {
    if (batch.length === 0) return true;
    try {
      logRecorded(batch, await deps.storage.transaction((tx) => recordIn(tx, batch)));
      await afterRecorded(batch);
      return true;
    } catch (cause) {
      const keepUntil = deps.clock.now() + KEEP_MARGIN_MS;
      for (const result of batch) {
        const leaseEnds = Date.parse(result.delivery.leaseExpiresAt ?? "");
        if (leaseEnds > keepUntil) finished.push(result);
        log({
          event: "error",
          stage: "record",
          deliveryId: result.delivery.id,
          error: String(cause),
        });
      }
      return false;
    }
  };

  /** Records whatever has finished now, outside a pass (runOnce, stopping); `settle` waits. */
  const record = (): Promise<boolean> => {
    const recording: Promise<boolean> = recordAlone(finished.splice(0)).finally(() =>
      recordings.delete(recording),
    );
    recordings.add(recording);
    return recording;
  };

  /**
   * What a pass claims (`null`: nothing, every slot is taken): what can start at once, in
   * steps, each fair between organizations and destinations: first destinations not heard
   * answering lately (new ones, failing ones, half-open circuits), one attempt each, within
   * their share of the slots; then destinations that answer, up to their free slots each.
   * Destinations whose slots are full or whose circuit is open are passed over.
   */
  const planClaim = (now: number): { free: number; steps: ClaimStep[] } | null => {
    health.forgetIdle(now, (key) => runningPer.has(key));
    const free = concurrency - inFlight.size;
    if (free <= 0) return null;
    const { passedOver, unprovenRunning, answeringByRoom } = health.plan(runningPer, now);
    const steps: ClaimStep[] = [
      {
        limit: unprovenConcurrency - unprovenRunning,
        excludeDestinations: passedOver,
        perDestination: 1,
      },
      ...[...answeringByRoom].map(([room, keys]) => ({
        limit: free,
        onlyDestinations: keys,
        perDestination: room,
      })),
    ];
    return { free, steps };
  };

  /** Each claimed row with its destination, read through `reads` once per destination. */
  const resolveAll = async (
    reads: DestinationReads,
    rows: readonly DeliveryRecord[],
  ): Promise<Claimed[]> => {
    const once = readOnce(reads);
    const claimed: Claimed[] = [];
    for (const delivery of rows) {
      // Read with the claim, once per destination and pass; a failure fails only the attempt.
      const resolution = await resolveDestination(once, deps.secretBox, delivery.destination)
        .then((destination) => ({ destination }))
        .catch((cause: unknown) => ({ cause }));
      const resolve = () =>
        "destination" in resolution
          ? Promise.resolve(resolution.destination)
          : Promise.reject(resolution.cause);
      claimed.push({ delivery, resolve });
    }
    return claimed;
  };

  /**
   * Records `batch` and claims what can start at once, atomically: in one write where the
   * storage offers `recordAndClaim`, otherwise in a transaction (see `recordThenClaim`).
   */
  const recordAndClaim = async (
    batch: AttemptResult[],
  ): Promise<{ recorded: boolean[]; claimed: Claimed[] }> => {
    const now = deps.clock.now();
    const plan = planClaim(now);
    if (plan === null) return { recorded: await recordIn(deps.storage, batch), claimed: [] };
    return recordThenClaim(
      deps.storage,
      owner,
      completed(batch),
      isoAt(now),
      plan.free,
      leaseMs,
      plan.steps,
      resolveAll,
    );
  };

  /**
   * After a batch is recorded: notes each subscription's latest outcome (see
   * `failingSubscriptions`), and makes due the backlog of destinations whose circuit closed.
   * This is bookkeeping: a failure is logged, and later attempts try again.
   */
  const afterRecorded = async (batch: readonly AttemptResult[]): Promise<void> => {
    try {
      await subscriptions.note(batch);
      for (const key of [...reopened]) {
        reopened.delete(key);
        await deps.storage.deliveries.dueNowForDestination(key, isoAt(deps.clock.now()));
      }
    } catch (cause) {
      log({ event: "error", stage: "health", error: String(cause) });
    }
  };

  /**
   * One pass: a single write (one statement where the storage offers `recordAndClaim`, else a
   * transaction) records the attempts finished since the last pass and claims what can start
   * at once; after the commit the claimed attempts start. A busy engine
   * so writes once per pass, not once per attempt. Rows claimed while the engine stops are
   * still attempted: `stop()` waits for them.
   */
  const claimPass = async (): Promise<void> => {
    // An idle engine only reads; a claim writes, which SQLite serializes across processes. An
    // engine whose last pass claimed something is busy, and claims again without asking.
    const claiming =
      !stopping && (claimedLastPass || isDue(await deps.storage.deliveries.nextDueAt()));
    claimedLastPass = false;
    // Taken after the read: should it fail, the finished attempts wait for the next pass.
    const batch = finished.splice(0);
    if (!claiming) {
      await recordAlone(batch);
      return;
    }
    let outcome: { recorded: boolean[]; claimed: Claimed[] };
    try {
      const started = performance.now();
      outcome = await recordAndClaim(batch);
      const tookMs = performance.now() - started;
      flushDelayMs = Math.min(MAX_FLUSH_DELAY_MS, Math.max(FLUSH_DELAY_MS, tookMs));
    } catch (cause) {
      log({ event: "error", stage: "claim", error: String(cause) });
      await recordAlone(batch);
      return;
    }
    logRecorded(batch, outcome.recorded);
    claimedLastPass = outcome.claimed.length > 0;
    for (const claimed of outcome.claimed) run(claimed);
    await afterRecorded(batch);
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

  /**
   * Waits for the attempts in flight and for every one of them to be recorded. A recording that
   * keeps failing is tried a few more times, a little later each time, then left: its rows'
   * leases end and another engine attempts them again.
   */
  const settle = async (): Promise<void> => {
    for (let failures = 0; failures < SETTLE_RECORD_TRIES; ) {
      await Promise.allSettled([...inFlight, ...recordings]);
      if (inFlight.size > 0 || recordings.size > 0) continue;
      if (finished.length === 0) return;
      if (!(await record())) {
        failures += 1;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** failures));
      }
    }
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
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
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
      // Stopped: `runOnce` claims again, and `start` may go on where this left off.
      stopping = false;
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
    openCircuits: () => health.openCount(),
  };
}
