import type { ChannelProvider, DispatchResult } from "../ports.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import { upstreamError } from "./upstream-errors.js";

/** Whether an answer says the upstream could not be reached (what opens a circuit). */
const unavailable = (result: DispatchResult): boolean =>
  result.status !== "accepted" && result.error.code === "upstream_unavailable";

/**
 * `provider` behind `breaker`: while the circuit is open, sends fail at once with
 * `upstream_unavailable` instead of waiting out a deadline each; every answer is told to the
 * breaker (a rejection of the dispatch counts as unavailable).
 */
export function guardedProvider(
  provider: ChannelProvider,
  breaker: CircuitBreaker,
): ChannelProvider {
  const guarded: ChannelProvider = {
    name: provider.name,
    async dispatch(message, options) {
      if (!breaker.admit()) {
        return {
          status: "rejected",
          notTaken: "circuit_open",
          error: upstreamError(
            "upstream_unavailable",
            `The ${provider.name} upstream failed repeatedly; sends are paused for a moment before it is tried again.`,
            provider.name,
          ),
        };
      }
      let result: DispatchResult;
      try {
        result = await provider.dispatch(message, options);
      } catch (error) {
        breaker.record("unavailable");
        throw error;
      }
      breaker.record(unavailable(result) ? "unavailable" : "ok");
      return result;
    },
  };
  if (provider.providerFor) guarded.providerFor = (channel) => provider.providerFor!(channel);
  if (provider.textLimit) guarded.textLimit = (channel) => provider.textLimit!(channel);
  if (provider.close) guarded.close = () => provider.close!();
  return guarded;
}
