// Test-only helpers shared by the webhook tests: a world of memory storage, a manual clock and
// the fakes of `testing/fakes.ts`.
import type { Actor } from "../deps.js";
import { defaultConfig } from "../deps.js";
import type { MessageRecord, WebhookTransport } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { createWebhook } from "../webhooks/subscriptions.js";
import { seedMessage, seedOrganization } from "./contract/seed.js";
import { fakeTransport, httpsOnly, readableSecretBox } from "./fakes.js";
import { memoryStorage } from "./memory/index.js";

/** A fresh world: storage, clock, ids, deps and a seeded organization with key and profile. */
export async function webhookWorld(transport: WebhookTransport = fakeTransport()) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const ids = createIds(clock);
  const deps = {
    storage,
    clock,
    ids,
    secretBox: readableSecretBox,
    transport,
    urlPolicy: httpsOnly,
    config: defaultConfig,
  };
  const org = await seedOrganization(storage);
  const actor: Actor = { organizationId: org.organization.id, apiKeyId: org.apiKey.id };
  /** Stores a message of the organization (with its seed event). */
  const message = async (overrides: Partial<MessageRecord> = {}) =>
    (await seedMessage(storage, org, overrides)).message;
  /** Creates a subscription of the organization: to message.sent at hooks.example.com unless told. */
  const addWebhook = async (input: Record<string, unknown> = {}) =>
    (
      await createWebhook(deps, actor, {
        url: "https://hooks.example.com/in",
        topics: ["message.sent"],
        ...input,
      })
    )._unsafeUnwrap();
  return { clock, storage, ids, deps, org, actor, message, addWebhook };
}
