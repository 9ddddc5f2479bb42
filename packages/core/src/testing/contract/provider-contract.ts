// The provider contract suite: what every `ChannelProvider` does the same, run by each adapter
// against its provider's fake (and by the sandbox, which has no upstream to fail).
import { describe, expect, it } from "vitest";
import type { Channel, ChannelProvider, Clock, OutboundMessage } from "../../ports.js";
import type { ProviderLogger } from "../../providers/provider-logger.js";
import { UNAUTHORIZED_LOG_EVERY_MS } from "../../providers/upstream-answers.js";
import { manualClock } from "../../support/clock.js";
import { skippedUnless } from "../skip-reason.js";

/** How the contract asks a provider's fake to answer the next requests. */
export type ContractFault =
  /** 401: the credentials are refused. */
  | "unauthorized"
  /** 429 with `Retry-After: 0`. */
  | "rate_limited"
  /** 500 after the request arrived (the provider may have taken the message). */
  | "server_error"
  /** No answer at all, until the deadline. */
  | "hang"
  /** The connection is cut after the request arrived. */
  | "drop";

/** A provider's fake as the contract drives it. */
export interface ContractFake {
  /** The next requests' answers, in order; after them, requests are accepted. */
  answerNext(...faults: ContractFault[]): void;
  /** How many send requests reached the fake. */
  requests(): number;
}

/** What the contract hands the setup for each provider it builds. */
export interface ContractProviderOptions {
  clock: Clock;
  logger: ProviderLogger;
  /** The deadline of one send, in ms. */
  timeoutMs: number;
}

/** A provider under the contract, with its fake (none for the sandbox). */
export interface ContractWorld {
  provider: ChannelProvider;
  fake: ContractFake | null;
  /** The same provider pointed at an address that refuses connections. */
  unreachable: (() => ChannelProvider) | null;
  close(): Promise<void>;
}

export interface ProviderContractSetup {
  /** `TIDINGS_PROVIDER`'s value of the provider. */
  name: string;
  /** A message this provider carries (its channel, a sender it takes). */
  message: OutboundMessage;
  /** Whether a request that may have reached the provider is sent again (idempotent accounts). */
  retriesUnknownOutcome?: boolean | undefined;
  /** Whether there is an upstream to fail, with a fake (false for the sandbox). */
  upstream: boolean;
  start(options: ContractProviderOptions): Promise<ContractWorld>;
}

/**
 * The provider contract: accepted ids; 401/403 `upstream_unauthorized`, logged at error once a
 * minute; 429 tried again after its `Retry-After`; the deadline; requests that may have reached
 * the provider not sent again unless it deduplicates; a refused connection retried and "nothing
 * was sent"; the breaker open after 5 unavailable answers, then one probe. A provider without a
 * fake (the sandbox) runs the parts that need none.
 */
export function runProviderContract(setup: ProviderContractSetup): void {
  describe(`provider contract: ${setup.name}`, () => {
    const errors: string[] = [];
    const warnings: string[] = [];
    const logger: ProviderLogger = {
      error: (msg) => errors.push(msg),
      warn: (msg) => warnings.push(msg),
      info: () => {},
    };
    const world = async (clock: Clock = manualClock(Date.now()), timeoutMs = 2000) => {
      errors.length = 0;
      warnings.length = 0;
      return setup.start({ clock, logger, timeoutMs });
    };
    const unknownRetried = setup.retriesUnknownOutcome === true;
    const channel: Channel = setup.message.channel;

    it("accepts a message under the provider's name, with its id for it", async () => {
      const w = await world();
      try {
        const result = await w.provider.dispatch(setup.message);
        expect(result).toMatchObject({ status: "accepted" });
        expect(w.provider.providerFor?.(channel) ?? w.provider.name).toBe(setup.name);
        if (w.fake !== null) {
          expect(result.status === "accepted" && result.providerMessageId).toBeTruthy();
          expect(w.fake.requests()).toBe(1);
          expect(warnings).toEqual([]);
        }
      } finally {
        await w.close();
      }
    });

    describe.skipIf(
      skippedUnless(
        setup.upstream,
        `${setup.name} has no upstream: its failure cases do not apply`,
      ),
    )("against the provider's fake", () => {
      const withFake = (
        name: string,
        test: (w: ContractWorld, fake: ContractFake) => Promise<void>,
      ) =>
        it(name, async () => {
          const w = await world();
          try {
            if (w.fake === null) throw new Error(`${setup.name} declares an upstream but no fake`);
            await test(w, w.fake);
          } finally {
            await w.close();
          }
        });

      it("401 is upstream_unauthorized, logged at error at most once a minute", async () => {
        const clock = manualClock(Date.now());
        const w = await world(clock);
        try {
          if (w.fake === null) throw new Error(`${setup.name} declares an upstream but no fake`);
          w.fake.answerNext("unauthorized", "unauthorized", "unauthorized");
          const first = await w.provider.dispatch(setup.message);
          expect(first).toMatchObject({
            status: "rejected",
            error: { code: "upstream_unauthorized", provider: setup.name },
          });
          await w.provider.dispatch(setup.message);
          expect(errors).toHaveLength(1);
          clock.advance(UNAUTHORIZED_LOG_EVERY_MS);
          await w.provider.dispatch(setup.message);
          expect(errors).toHaveLength(2);
          expect(w.fake.requests()).toBe(3);
        } finally {
          await w.close();
        }
      });

      withFake(
        "429 is tried again after its Retry-After, and the retry's answer stands",
        async (w, fake) => {
          fake.answerNext("rate_limited");
          expect(await w.provider.dispatch(setup.message)).toMatchObject({ status: "accepted" });
          expect(fake.requests()).toBe(2);
        },
      );

      it("no answer within the deadline is upstream_unavailable, 'may have taken it'", async () => {
        const w = await world(manualClock(Date.now()), 300);
        try {
          if (w.fake === null) throw new Error(`${setup.name} declares an upstream but no fake`);
          w.fake.answerNext("hang", "hang", "hang");
          const result = await w.provider.dispatch(setup.message);
          expect(result).toMatchObject({
            status: "rejected",
            error: { code: "upstream_unavailable", provider: setup.name },
          });
          if (!unknownRetried) {
            expect(result.status === "rejected" && result.error.message).toMatch(
              /may have taken it/,
            );
            expect(w.fake.requests()).toBe(1);
          }
        } finally {
          await w.close();
        }
      });

      withFake(
        "a 5xx or a cut connection is sent again only where the provider deduplicates",
        async (w, fake) => {
          fake.answerNext("server_error");
          const fiveXX = await w.provider.dispatch(setup.message);
          fake.answerNext("drop");
          const dropped = await w.provider.dispatch(setup.message);
          if (unknownRetried) {
            expect(fiveXX).toMatchObject({ status: "accepted" });
            expect(dropped).toMatchObject({ status: "accepted" });
            expect(fake.requests()).toBe(4);
          } else {
            for (const result of [fiveXX, dropped]) {
              expect(result).toMatchObject({
                status: "rejected",
                error: { code: "upstream_unavailable" },
              });
            }
            expect(fake.requests()).toBe(2);
          }
          expect(warnings).toHaveLength(2);
        },
      );

      it("a refused connection is tried again and ends 'nothing was sent'", async () => {
        const w = await world();
        try {
          if (w.unreachable === null)
            throw new Error(`${setup.name} gives no unreachable provider`);
          const result = await w.unreachable().dispatch(setup.message);
          expect(result).toMatchObject({
            status: "rejected",
            error: { code: "upstream_unavailable", provider: setup.name },
          });
          expect(result.status === "rejected" && result.error.message).toMatch(
            /ECONNREFUSED.*nothing was sent/,
          );
          expect(warnings.length).toBeGreaterThanOrEqual(2);
        } finally {
          await w.close();
        }
      });

      it("after 5 unavailable answers the circuit opens for 30 s, then one probe", async () => {
        const clock = manualClock(Date.now());
        const w = await world(clock);
        try {
          if (w.fake === null) throw new Error(`${setup.name} declares an upstream but no fake`);
          // Each send tries once, or 3 times where a 5xx is tried again; every try fails.
          const tries = unknownRetried ? 3 : 1;
          w.fake.answerNext(...Array<ContractFault>(5 * tries).fill("server_error"));
          for (let i = 0; i < 5; i += 1) await w.provider.dispatch(setup.message);
          expect(w.fake.requests()).toBe(5 * tries);
          const fast = await w.provider.dispatch(setup.message);
          expect(fast).toMatchObject({
            status: "rejected",
            error: { code: "upstream_unavailable" },
          });
          expect(w.fake.requests()).toBe(5 * tries);
          clock.advance(30_000);
          expect(await w.provider.dispatch(setup.message)).toMatchObject({ status: "accepted" });
        } finally {
          await w.close();
        }
      });
    });
  });
}
