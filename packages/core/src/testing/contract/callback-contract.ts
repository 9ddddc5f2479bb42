// The callback contract suite: what every provider's callback endpoint does the same, run by
// each adapter with reports signed (or tokened) as its provider does.
import { describe, expect, it } from "vitest";
import type { CallbackResponse } from "../../providers/callback-app.js";

/** One message on the provider's leg, already sent, and the ways to report on it. */
export interface CallbackContractWorld {
  /** A genuine report that the message was delivered, authenticated as the provider does. */
  delivered(): Promise<CallbackResponse>;
  /** The same report with a signature (or token) that is not the provider's. */
  forged(): Promise<CallbackResponse>;
  /** The same report with no signature (or token) at all. */
  unsigned(): Promise<CallbackResponse>;
  /** A genuine report about a message Tidings does not have. */
  unknownMessage(): Promise<CallbackResponse>;
  /** The message's event topics, oldest first. */
  topics(): Promise<string[]>;
}

export interface CallbackContractSetup {
  name: string;
  world(): Promise<CallbackContractWorld>;
}

/**
 * The callback contract: unsigned or forged reports are refused (4xx, or 503 where the provider
 * retries an unsigned one) and change nothing; a genuine report answers 200 with an empty body
 * once stored; the same report again adds nothing; a report about an unknown message answers
 * 200, so the provider stops retrying.
 */
export function runCallbackContract(setup: CallbackContractSetup): void {
  describe(`callback contract: ${setup.name}`, () => {
    it("an unsigned or forged report is refused and changes nothing", async () => {
      const w = await setup.world();
      const before = await w.topics();
      for (const answer of [await w.unsigned(), await w.forged()]) {
        expect(answer.status === 503 || (answer.status >= 400 && answer.status < 500)).toBe(true);
      }
      expect(await w.topics()).toEqual(before);
    });

    it("a genuine report answers 200 with an empty body; the same report again adds nothing", async () => {
      const w = await setup.world();
      const first = await w.delivered();
      expect([first.status, first.body]).toEqual([200, ""]);
      const after = await w.topics();
      expect(after.at(-1)).toBe("message.delivered");
      expect((await w.delivered()).status).toBe(200);
      expect(await w.topics()).toEqual(after);
    });

    it("a report about an unknown message answers 200", async () => {
      const w = await setup.world();
      expect((await w.unknownMessage()).status).toBe(200);
    });
  });
}
