import type {
  Channel,
  ChannelProvider,
  DispatchResult,
  ProviderAttempt,
  TextLimit,
} from "../ports.js";
import type { ProviderLogger } from "./provider-logger.js";

/** One provider of a channel's failover list, with the senders it holds. */
export interface FailoverMember {
  provider: ChannelProvider;
  /**
   * `TIDINGS_<PROVIDER>_SENDERS`: a campaign's sender → the sender on this provider's account,
   * or `null` when unset. A provider after the first carries a message only when this maps its
   * sender; the first sends a mapped sender as mapped and any other as it is.
   */
  senders: Readonly<Record<string, string>> | null;
}

export interface FailoverOptions {
  /**
   * `TIDINGS_FAILOVER_ON_TIMEOUT=1`: a timeout or a 5xx, after which the provider may have
   * taken the message, fails over too (a duplicate is then possible).
   */
  onTimeout: boolean;
  /** Told about each failover, for `tidings_provider_failovers_total{from,to}`. */
  onFailover?: ((from: string, to: string, channel: Channel) => void) | undefined;
  logger?: Pick<ProviderLogger, "warn"> | undefined;
}

const nameOf = (provider: ChannelProvider, channel: Channel): string =>
  provider.providerFor?.(channel) ?? provider.name;

/** The sender `member` (at `index` in the list) sends `sender` from, or `null` when it cannot. */
function senderOn(member: FailoverMember, index: number, sender: string): string | null {
  const mapped = member.senders !== null && Object.hasOwn(member.senders, sender);
  if (mapped) return member.senders![sender] ?? null;
  return index === 0 ? sender : null;
}

/**
 * Whether `result` lets the next provider carry the message: only when this one provably did
 * not take it (never reached, circuit open, 401/403, 429), or, with `onTimeout`, when it could
 * not be reached in time or answered 5xx.
 */
const failsOver = (result: DispatchResult, onTimeout: boolean): boolean =>
  result.status === "rejected" &&
  (result.notTaken !== undefined || (onTimeout && result.error.code === "upstream_unavailable"));

/** How the list remembers a provider it failed over from: `failsOver` held for `result`. */
const attemptOf = (provider: string, result: DispatchResult): ProviderAttempt => ({
  provider,
  outcome: result.notTaken ?? "unavailable",
});

/** The smallest text limit of `limits`, or `null` when none has one. */
function smallest(limits: ReadonlyArray<TextLimit | null | undefined>): TextLimit | null {
  let least: TextLimit | null = null;
  for (const limit of limits) {
    if (limit && (least === null || limit.characters < least.characters)) least = limit;
  }
  return least;
}

/**
 * One `ChannelProvider` over a channel's ordered list of providers (`TIDINGS_PROVIDER_SMS=
 * twilio,vonage`). A message goes to the first; it goes on to the next at once, without the
 * first trying again, only when the first provably did not take it (`failsOver`) and the next
 * maps the message's sender in its `senders`, sending from the mapped one. The answer names the
 * provider that carried it (so the leg, and its callbacks, are that provider's) and, in
 * `triedBefore`, the providers it failed over from; a failure after a failover keeps the
 * earlier providers' words in its message. Its text limit is the
 * smallest of the list's.
 */
export function failoverProvider(
  members: readonly FailoverMember[],
  options: FailoverOptions,
): ChannelProvider {
  const [first] = members;
  if (first === undefined) throw new Error("A failover list needs at least one provider.");
  return {
    name: members.map((member) => member.provider.name).join(","),
    providerFor: (channel) => nameOf(first.provider, channel),
    textLimit: (channel) => smallest(members.map((m) => m.provider.textLimit?.(channel))),
    async dispatch(message, dispatchOptions) {
      const chain = members.flatMap((member, index) => {
        const sender = senderOn(member, index, message.sender);
        return sender === null ? [] : [{ provider: member.provider, sender }];
      });
      const unmapped = members
        .filter((member) => !chain.some((leg) => leg.provider === member.provider))
        .map((member) => nameOf(member.provider, message.channel));
      const earlier: string[] = [];
      const triedBefore: ProviderAttempt[] = [];
      let from: string | null = null;
      for (const [index, leg] of chain.entries()) {
        const name = nameOf(leg.provider, message.channel);
        if (from !== null) {
          options.onFailover?.(from, name, message.channel);
          options.logger?.warn("provider failover", {
            message_id: message.messageId,
            channel: message.channel,
            from,
            to: name,
          });
        }
        const last = index === chain.length - 1;
        const result = await leg.provider.dispatch(
          { ...message, sender: leg.sender },
          { failoverReady: !last || dispatchOptions?.failoverReady === true },
        );
        const named: DispatchResult = {
          ...result,
          provider: result.provider ?? name,
          ...(triedBefore.length > 0 ? { triedBefore: [...triedBefore] } : {}),
        };
        if (last || !failsOver(named, options.onTimeout)) {
          if (named.status === "accepted") return named;
          let words = named.error.message;
          if (earlier.length > 0) words += ` Tried before: ${earlier.join(" ")}`;
          if (last && unmapped.length > 0 && failsOver(named, options.onTimeout)) {
            words += ` Not failed over to ${unmapped.join(", ")}: no TIDINGS_<PROVIDER>_SENDERS entry for the sender ${JSON.stringify(message.sender)}.`;
          }
          return words === named.error.message
            ? named
            : { ...named, error: { ...named.error, message: words } };
        }
        earlier.push(`${name}: ${named.status === "accepted" ? "" : named.error.message}`);
        triedBefore.push(attemptOf(name, named));
        from = name;
      }
      // Unreachable: the first provider is always in the chain.
      throw new Error("No provider in the failover list carries the message.");
    },
    async close() {
      await Promise.all(members.map((member) => member.provider.close?.()));
    },
  };
}
