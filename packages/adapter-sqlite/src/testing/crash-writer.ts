/**
 * The child process of the crash test: through the real core use cases, on the SQLite file
 * named by argv[2], it sets up an organization (API key, active OTP campaign, and a webhook
 * subscription unless argv[3] is `unsubscribed`), then creates profiles and sends messages until
 * it is killed, while the delivery engine and the sandbox's reports run beside it. It prints
 * one JSON line per acknowledged success, only after the use case answered.
 */

import { pathToFileURL } from "node:url";
import type { Actor, Deps, WebhookResponse } from "@tidings/core";
import {
  activateCampaign,
  aesGcmSecretBox,
  createApiKey,
  createCampaign,
  createDeliveryEngine,
  createIds,
  createOrganization,
  createProfile,
  createWebhook,
  defaultConfig,
  recordProviderReport,
  SANDBOX_NUMBERS,
  sandboxProvider,
  sendMessage,
  systemClock,
} from "@tidings/core";
import { sqliteStorage } from "../sqlite-storage.js";

/** One acknowledged success, as the parent reads it. */
export type CrashAck =
  | { kind: "profile"; id: string }
  | { kind: "message"; id: string; webhookUrl: string | null };

const acknowledge = (ack: CrashAck): void => {
  // Writes to a pipe are synchronous on Linux: once this returns, the parent can read the line.
  process.stdout.write(`${JSON.stringify(ack)}\n`);
};

/** A use case's answer (a neverthrow `ResultAsync`), as far as this writer reads it. */
interface Answer<T> {
  match<A>(ok: (value: T) => A, refused: (error: unknown) => A): PromiseLike<A>;
}

/** Unwraps a use case's answer; any refusal is a bug in this writer, so it stops loudly. */
const expectOk = <T>(step: string, answer: Answer<T>): PromiseLike<T> =>
  answer.match(
    (value) => value,
    (error) => {
      throw new Error(`crash writer: ${step} was refused: ${JSON.stringify(error)}`);
    },
  );

// Receivers answer 200 at once, so deliveries move to `delivered` while the writer runs.
const receiver = {
  post: async (): Promise<WebhookResponse> => ({
    kind: "response",
    status: 200,
    headers: {},
    body: "ok",
    durationMs: 1,
  }),
};

/**
 * Writes until killed: sets up the organization on the SQLite file at `path` (a webhook
 * subscription too unless `subscription` is `unsubscribed`), then creates profiles and sends
 * messages, acknowledging each success on stdout.
 */
export async function runCrashWriter(
  path: string,
  subscription: string | undefined,
): Promise<void> {
  const storage = sqliteStorage(path);
  const provider = sandboxProvider({ delayMs: 5 });
  const deps: Deps = {
    storage,
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(new Uint8Array(32).fill(7)),
    provider,
    transport: receiver,
    urlPolicy: { check: async () => ({ allowed: true }) },
    config: defaultConfig,
  };
  provider.onReport(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
  });

  const org = await expectOk("createOrganization", createOrganization(deps, { name: "Crash" }));
  const key = await expectOk(
    "createApiKey",
    createApiKey(deps, { organization_id: org.id, scopes: ["messages:send", "profiles:write"] }),
  );
  const admin: Actor = { organizationId: org.id, apiKeyId: null };
  const campaign = await expectOk(
    "createCampaign",
    createCampaign(deps, admin, {
      name: "Login codes",
      channel: "sms",
      category: "otp",
      sender: "Tidings",
      template: "Your code is {{pin}}",
    }),
  );
  await expectOk("activateCampaign", activateCampaign(deps, admin, campaign.campaign_id));
  if (subscription !== "unsubscribed") {
    await expectOk(
      "createWebhook",
      createWebhook(deps, admin, {
        url: "https://hooks.example.com/tidings",
        topics: ["message.sent", "message.delivered", "message.seen", "message.failed"],
      }),
    );
  }

  const engine = createDeliveryEngine(deps, { pollMs: 20 });
  engine.start();
  const sender: Actor & { apiKeyId: string } = { organizationId: org.id, apiKeyId: key.key_id };

  for (let i = 0; ; i++) {
    // A server yields between requests; so does this loop, or the report timers would starve.
    await new Promise((resolve) => setImmediate(resolve));
    const phone = `+30694${String(i).padStart(7, "0")}`;
    if (i % 2 === 0) {
      const profile = await expectOk(
        "createProfile",
        createProfile(deps, admin, { phone_number: phone, attributes: { i } }),
      );
      acknowledge({ kind: "profile", id: profile.public_id });
      continue;
    }
    // New recipients (the send creates their profile), known ones, and the refusing number.
    const recipient =
      i % 7 === 1 ? SANDBOX_NUMBERS.rejected : i % 3 === 0 ? `+30694${"0".repeat(7)}` : phone;
    const webhookUrl = i % 5 === 0 ? `https://receiver.example.com/messages/${i}` : null;
    const sent = await expectOk(
      "sendMessage",
      sendMessage(deps, sender, {
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: recipient },
        params: { pin: String(100_000 + i) },
        ...(webhookUrl === null ? {} : { webhook_url: webhookUrl }),
      }),
    );
    acknowledge({ kind: "message", id: sent.message_id, webhookUrl });
    engine.wake();
  }
}

// Runs only as the child process (`node --import tsx crash-writer.ts <file>`), never on import.
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const [path, subscription] = process.argv.slice(2);
  if (path === undefined) throw new Error("usage: crash-writer <database file> [unsubscribed]");
  await runCrashWriter(path, subscription);
}
