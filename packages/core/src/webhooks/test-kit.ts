// Test-only helpers shared by the webhook tests: memory storage, a manual clock, a readable
// stand-in SecretBox, a URL policy that wants https, and a scripted WebhookTransport.
import type { Actor } from "../deps.js";
import { defaultConfig } from "../deps.js";
import type {
  MessageRecord,
  SecretBox,
  UrlPolicy,
  WebhookRequest,
  WebhookResponse,
  WebhookTransport,
} from "../ports.js";
import { manualClock } from "../shared/clock.js";
import { createIds } from "../shared/ids.js";
import { seedMessage, seedOrganization } from "../testing/contract/seed.js";
import { memoryStorage } from "../testing/memory/index.js";

/** Seals as `sealed:<plaintext>`, like the contract fixtures, so stored values stay readable. */
export const plainSecretBox: SecretBox = {
  seal: (plaintext) => `sealed:${plaintext}`,
  open: (sealed) => {
    if (!sealed.startsWith("sealed:")) throw new Error("not sealed by this box");
    return sealed.slice("sealed:".length);
  },
};

/** Allows https URLs only; the reason names the rule. */
export const httpsOnly: UrlPolicy = {
  check: async (url) =>
    url.startsWith("https://")
      ? { allowed: true }
      : { allowed: false, reason: "must be an https URL." },
};

/** A transport that answers from a script and remembers every request. */
export interface FakeTransport extends WebhookTransport {
  requests: WebhookRequest[];
}

export type Answer = (request: WebhookRequest) => WebhookResponse | Promise<WebhookResponse>;

/** A 2xx-or-other response with no body. */
export const status = (code: number, headers: Record<string, string> = {}): WebhookResponse => ({
  kind: "response",
  status: code,
  headers,
  body: "",
  durationMs: 5,
});

/** A fake transport answering with `answer` (200 by default). */
export function fakeTransport(answer: Answer = () => status(200)): FakeTransport {
  const requests: WebhookRequest[] = [];
  return {
    requests,
    async post(request) {
      requests.push(request);
      return answer(request);
    },
  };
}

/** A fresh world: storage, clock, ids, deps and a seeded organization with key and profile. */
export async function webhookWorld(transport: WebhookTransport = fakeTransport()) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const ids = createIds(clock);
  const deps = {
    storage,
    clock,
    ids,
    secretBox: plainSecretBox,
    transport,
    urlPolicy: httpsOnly,
    config: defaultConfig,
  };
  const org = await seedOrganization(storage);
  const actor: Actor = { organizationId: org.organization.id, apiKeyId: org.apiKey.id };
  /** Stores a message of the organization (with its seed event). */
  const message = async (overrides: Partial<MessageRecord> = {}) =>
    (await seedMessage(storage, org, overrides)).message;
  return { clock, storage, ids, deps, org, actor, message };
}
