/** What one attempt learned of its destination. */
export type AttemptSignal =
  /** The receiver answered, whatever the status: it is there, and it is not holding a slot. */
  | "answered"
  /** No answer: a timeout, a refused or reset connection, a name that does not resolve. */
  | "unreachable";

/** How the slots of the next claim are split, from what is in flight and what is known. */
export interface ClaimPlan {
  /** Destinations a claim for the unproven ones passes over: answering, or with no room. */
  passedOver: string[];
  /** Attempts in flight to destinations not answering (or not heard from). */
  unprovenRunning: number;
  /** Answering destinations with room, by how many more attempts each may start. */
  answeringByRoom: Map<number, string[]>;
}

/** What became of a destination's circuit after an attempt. */
export type CircuitChange = "opened" | "closed" | null;

export interface DestinationHealthOptions {
  /** Attempts in flight at once to a destination that answers (8). */
  perDestination: number;
  /** Unanswered attempts in a row that open the circuit (3). */
  failuresToOpen?: number | undefined;
  /** How long the circuit first stays open, in ms (5 000); doubled at each failed probe. */
  openMs?: number | undefined;
  /** The longest it stays open, in ms (30 000), so a recovered receiver is found soon. */
  maxOpenMs?: number | undefined;
  /** A destination not attempted for this long, in ms, is forgotten (600 000). */
  forgetAfterMs?: number | undefined;
}

type State =
  /** Its last attempt was answered. */
  | { kind: "answering"; seenAt: number }
  /** Its last attempts went unanswered, fewer than it takes to open. */
  | { kind: "failing"; failures: number; seenAt: number }
  /** Not tried until `until`; after that one probe at a time (half-open). */
  | { kind: "open"; until: number; openMs: number; seenAt: number };

/**
 * What the delivery engine knows of each destination, from its own attempts: a circuit
 * breaker, and the in-flight allowance that keeps dead receivers from taking the slots live
 * ones need. A destination that answers may have `perDestination` attempts in flight; one not
 * yet heard from, or whose last attempt went unanswered, one at a time (a new receiver ramps up
 * after its first answer); after `failuresToOpen` unanswered attempts in a row its circuit
 * opens and it gets none until `openMs` has passed, then one probe: an answer closes the
 * circuit, silence opens it again for twice as long, up to `maxOpenMs`.
 */
export class DestinationHealth {
  readonly #perDestination: number;
  readonly #failuresToOpen: number;
  readonly #openMs: number;
  readonly #maxOpenMs: number;
  readonly #forgetAfterMs: number;
  readonly #states = new Map<string, State>();

  constructor(options: DestinationHealthOptions) {
    this.#perDestination = options.perDestination;
    this.#failuresToOpen = options.failuresToOpen ?? 3;
    this.#openMs = options.openMs ?? 5_000;
    this.#maxOpenMs = options.maxOpenMs ?? 30_000;
    this.#forgetAfterMs = options.forgetAfterMs ?? 600_000;
  }

  /** How many attempts to `key` may be in flight at `now`. */
  allowance(key: string, now: number): number {
    const state = this.#states.get(key);
    if (state === undefined) return 1;
    if (state.kind === "answering") return this.#perDestination;
    if (state.kind === "open" && now < state.until) return 0;
    return 1;
  }

  /** Whether `key`'s last attempt was answered: its attempts need no share kept for strangers. */
  isAnswering(key: string): boolean {
    return this.#states.get(key)?.kind === "answering";
  }

  /** Splits the next claim's slots, given the attempts in flight per destination. */
  plan(running: ReadonlyMap<string, number>, now: number): ClaimPlan {
    const plan: ClaimPlan = { passedOver: [], unprovenRunning: 0, answeringByRoom: new Map() };
    for (const key of new Set([...this.#states.keys(), ...running.keys()])) {
      const inFlight = running.get(key) ?? 0;
      const room = this.allowance(key, now) - inFlight;
      if (this.isAnswering(key)) {
        plan.passedOver.push(key);
        if (room > 0)
          plan.answeringByRoom.set(room, [...(plan.answeringByRoom.get(room) ?? []), key]);
      } else {
        plan.unprovenRunning += inFlight;
        if (room <= 0) plan.passedOver.push(key);
      }
    }
    return plan;
  }

  /** Destinations whose circuit is open (or half-open, waiting on a probe) at `now`. */
  openCount(): number {
    let open = 0;
    for (const state of this.#states.values()) if (state.kind === "open") open += 1;
    return open;
  }

  /** Takes in one attempt's outcome; says when that opened or closed the circuit. */
  record(key: string, signal: AttemptSignal, now: number): CircuitChange {
    const state = this.#states.get(key);
    if (signal === "answered") {
      this.#states.set(key, { kind: "answering", seenAt: now });
      return state?.kind === "open" ? "closed" : null;
    }
    if (state?.kind === "open") {
      // An attempt started before the circuit opened ended: the circuit stays as it is.
      if (now < state.until) {
        this.#states.set(key, { ...state, seenAt: now });
        return null;
      }
      // A probe went unanswered: open again, for twice as long.
      const openMs = Math.min(state.openMs * 2, this.#maxOpenMs);
      this.#states.set(key, { kind: "open", until: now + openMs, openMs, seenAt: now });
      return null;
    }
    const failures = state?.kind === "failing" ? state.failures + 1 : 1;
    if (failures < this.#failuresToOpen) {
      this.#states.set(key, { kind: "failing", failures, seenAt: now });
      return null;
    }
    this.#states.set(key, {
      kind: "open",
      until: now + this.#openMs,
      openMs: this.#openMs,
      seenAt: now,
    });
    return "opened";
  }

  /**
   * Forgets destinations not attempted lately, so the map stays as small as the set of
   * destinations with work: an open circuit with deliveries due is probed at least every
   * `maxOpenMs`, so only one with nothing left to deliver is forgotten.
   */
  forgetIdle(now: number, inFlight: (key: string) => boolean): void {
    for (const [key, state] of this.#states) {
      if (!inFlight(key) && now - state.seenAt >= this.#forgetAfterMs) this.#states.delete(key);
    }
  }
}
