import {
  aesGcmSecretBox,
  createApiKey,
  createCampaign,
  createIds,
  createOrganization,
  type DomainError,
  generateSecretKey,
  listMessageEvents,
  parseSecretKey,
  recordProviderReport,
  type SendResult,
  sendMessage,
  systemClock,
} from "@tidings/core";
import { memoryStorage } from "@tidings/core/testing";
import { consoleSmsProvider } from "./console-sms-provider.js";

/** What happened to one message: its dispatch status and its lifecycle events. */
export interface DemoSend {
  phone: string;
  status: SendResult["status"];
  topics: string[];
}

/** The demo stops at the first refusal; an application would map each error instead. */
const unwrap = <T>(result: {
  match<A, B = A>(onOk: (value: T) => A, onErr: (error: DomainError) => B): A | B;
}): T =>
  result.match(
    (value) => value,
    (error) => {
      throw new Error(`${error.code}: ${error.message}`);
    },
  );

/**
 * Plugs the custom provider into the core and sends an OTP through a Viber campaign with SMS
 * fallback to two numbers: the gateway is SMS-only, so the first falls back to SMS and is
 * delivered; the second is on the gateway's do-not-text list and fails.
 */
export async function runDemo(write: (line: string) => void): Promise<DemoSend[]> {
  const key = parseSecretKey(generateSecretKey());
  if (key.isErr()) throw new Error(key.error);
  const provider = consoleSmsProvider({ write, blocked: ["+14155550102"], receiptAfterMs: 50 });
  const deps = {
    storage: memoryStorage(),
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key.value),
    provider,
    // No webhook URLs in this demo; a real app passes adapter-http's createUrlPolicy().
    urlPolicy: { check: async () => ({ allowed: true }) as const },
  };
  let receipt: () => void = () => undefined;
  const receiptRecorded = new Promise<void>((resolve) => {
    receipt = resolve;
  });
  provider.onReport(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
    receipt();
  });

  const org = unwrap(await createOrganization(deps, { name: "Demo" }));
  const apiKey = unwrap(
    await createApiKey(deps, { organization_id: org.id, scopes: ["messages:send"] }),
  );
  const actor = { organizationId: org.id, apiKeyId: apiKey.key_id };
  const campaign = unwrap(
    await createCampaign(deps, actor, {
      name: "Login code",
      channel: "viber",
      sms_fallback: true,
      category: "otp",
      sender: "Demo",
      template: "Your Demo code is {{pin}}",
      status: "active",
    }),
  );

  const sent: Array<{ phone: string; id: string; status: SendResult["status"] }> = [];
  for (const phone of ["+14155550101", "+14155550102"]) {
    const result = unwrap(
      await sendMessage(deps, actor, {
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: phone },
        params: { pin: "482913" },
      }),
    );
    sent.push({ phone, id: result.message_id, status: result.status });
  }
  await receiptRecorded;
  await provider.close?.();

  const outcome: DemoSend[] = [];
  for (const { phone, id, status } of sent) {
    const events = unwrap(await listMessageEvents(deps, actor, id));
    outcome.push({ phone, status, topics: events.map((event) => event.topic) });
  }
  return outcome;
}
