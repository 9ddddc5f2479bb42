import {
  type ListenOptions,
  listenForDeliveries,
  type PgListeningPool,
  type PgNativeListener,
} from "../notifications.js";

/** A listener for deliveries that counts its wakes. */
export interface WakeCount {
  /** The wakes so far. */
  wakes(): number;
  /** Stops listening. */
  stop(): Promise<void>;
}

/** Listens for deliveries on `source` with `options`, counting every wake. */
export async function countWakes(
  source: PgListeningPool | PgNativeListener,
  options: ListenOptions,
): Promise<WakeCount> {
  let wakes = 0;
  const stop = await listenForDeliveries(
    source,
    () => {
      wakes += 1;
    },
    options,
  );
  return { wakes: () => wakes, stop };
}
