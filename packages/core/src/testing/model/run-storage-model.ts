import { describe, it } from "vitest";
import type { HarnessFactory } from "../contract/harness.js";
import { accountOperations } from "./account-operations.js";
import { audienceOperations } from "./audience-operations.js";
import type { StorageModelOptions } from "./check-storage-model.js";
import { checkAgainstReference } from "./check-storage-model.js";
import { deliveryOperations } from "./delivery-operations.js";
import { limitOperations } from "./limit-operations.js";
import { linkOperations } from "./link-operations.js";
import { messageOperations } from "./message-operations.js";
import {
  campaignQueryOperations,
  deliveryQueryOperations,
  messageQueryOperations,
} from "./operator-operations.js";
import { profileOperations } from "./profile-operations.js";

/**
 * The storage model test every adapter runs: registers vitest tests in which random sequences
 * of storage operations run on the in-memory reference and on a fresh harness from
 * `makeHarness`; every answer and, at the end, every stored record must agree. Profile `seq`
 * values are compared by order and meaning, not by number.
 */
export function runStorageModel(
  name: string,
  makeHarness: HarnessFactory,
  options: StorageModelOptions = {},
): void {
  const check = (operations: Parameters<typeof checkAgainstReference>[1]) =>
    checkAgainstReference(makeHarness, operations, options);

  // A fixed number of random sequences: seconds alone, but ten times that and more on a machine
  // busy with other work, where vitest's 30 s default failed runs that were only slow. The bound
  // stays, so a hang still fails.
  describe(`storage model: ${name}`, { timeout: 300_000 }, () => {
    it("profiles, lists, consent and transactions agree with the reference", async () => {
      await check([...profileOperations, ...audienceOperations]);
    });

    it("campaigns (pages, locked changes), API keys and webhooks agree with the reference", async () => {
      await check([...accountOperations, ...campaignQueryOperations]);
    });

    it("messages, their events and links, expiry and filtered pages agree with the reference", async () => {
      await check([
        ...messageOperations,
        ...linkOperations,
        ...messageQueryOperations,
        ...deliveryOperations.slice(0, 1),
      ]);
    });

    it("delivery leases, attempts, redeliveries, recoveries and pages agree with the reference", async () => {
      await check([...deliveryOperations, ...deliveryQueryOperations]);
    });

    it("rate limits and idempotency records agree with the reference", async () => {
      await check(limitOperations);
    });

    it("every kind of operation, interleaved, agrees with the reference", async () => {
      await check([
        ...profileOperations,
        ...audienceOperations,
        ...accountOperations,
        ...campaignQueryOperations,
        ...messageOperations,
        ...linkOperations,
        ...messageQueryOperations,
        ...deliveryOperations,
        ...deliveryQueryOperations,
        ...limitOperations,
      ]);
    });
  });
}
