import { describe } from "vitest";
import { accountsContract } from "./accounts-contract.js";
import { concurrencyContract } from "./concurrency-contract.js";
import { consentLoopContract } from "./consent-loop-contract.js";
import { consoleSessionsContract } from "./console-sessions-contract.js";
import { contactListsContract } from "./contact-lists-contract.js";
import { deliveryClaimsContract } from "./delivery-claims-contract.js";
import { deliveryOutcomesContract } from "./delivery-outcomes-contract.js";
import { failingDestinationsContract } from "./failing-destinations-contract.js";
import { fairDeliveryContract } from "./fair-delivery-contract.js";
import type { HarnessFactory } from "./harness.js";
import { useHarness } from "./harness.js";
import { idempotencyContract } from "./idempotency-contract.js";
import { linksContract } from "./links-contract.js";
import { messageCountsContract } from "./message-counts-contract.js";
import { messagePricesContract } from "./message-prices-contract.js";
import { messagesContract } from "./messages-contract.js";
import { operatorQueriesContract } from "./operator-queries-contract.js";
import { privacyContract } from "./privacy-contract.js";
import { profileListContract } from "./profile-list-contract.js";
import { profilesContract } from "./profiles-contract.js";
import { rateLimitsContract } from "./rate-limits-contract.js";
import { retentionContract } from "./retention-contract.js";
import { scheduleContract } from "./schedule-contract.js";
import { sendHitsContract } from "./send-hits-contract.js";
import { transactionsContract } from "./transactions-contract.js";
import { webhookChangesContract } from "./webhook-changes-contract.js";
import { webhooksContract } from "./webhooks-contract.js";

/**
 * The storage contract every adapter runs: registers vitest suites that check each guarantee
 * written in `ports.ts`, reading stored state through the harness's raw readers. Every test gets
 * a fresh harness from `makeHarness` and disposes it afterwards.
 */
export function runStorageContract(name: string, makeHarness: HarnessFactory): void {
  describe(`storage contract: ${name}`, () => {
    const harness = useHarness(makeHarness);
    accountsContract(harness);
    profilesContract(harness);
    profileListContract(harness);
    contactListsContract(harness);
    messagesContract(harness);
    webhooksContract(harness);
    webhookChangesContract(harness);
    deliveryClaimsContract(harness);
    deliveryOutcomesContract(harness);
    fairDeliveryContract(harness);
    operatorQueriesContract(harness);
    failingDestinationsContract(harness);
    rateLimitsContract(harness);
    sendHitsContract(harness);
    retentionContract(harness);
    idempotencyContract(harness);
    transactionsContract(harness);
    concurrencyContract(harness);
    consoleSessionsContract(harness);
    messageCountsContract(harness);
    messagePricesContract(harness);
    linksContract(harness);
    scheduleContract(harness);
    privacyContract(harness);
    consentLoopContract(harness);
  });
}
