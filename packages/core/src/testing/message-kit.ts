// Test-only helpers shared by the message tests: memory storage, a manual clock, the sandbox
// provider on a manual scheduler wired to `recordProviderReport`, and shortcuts for campaigns,
// profiles and sends. Not exported from the package.
import { createCampaign } from "../campaigns/create-campaign.js";
import type { Actor, LinkSettings } from "../deps.js";
import { defaultConfig } from "../deps.js";
import { recordProviderReport } from "../messages/provider-report.js";
import { type SandboxScheduler, sandboxProvider } from "../messages/sandbox-provider.js";
import { sendMessage } from "../messages/send-message.js";
import type { ChannelProvider, LocalCalendar, Telemetry } from "../ports.js";
import { createProfile } from "../profiles/create-profile.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { seedOrganization, seedWebhook } from "./contract/seed.js";
import { repeatUntilDone } from "./deadlines.js";
import { httpsOnly, readableSecretBox } from "./fakes.js";
import { memoryStorage } from "./memory/index.js";

/** A scheduler that runs nothing until told to, in the order things were scheduled. */
export function manualScheduler() {
  const queue: Array<{ run: () => void; cancelled: boolean }> = [];
  const scheduler: SandboxScheduler & {
    readonly pending: number;
    runNext(): Promise<boolean>;
    runAll(): Promise<number>;
  } = {
    schedule(run) {
      const task = { run, cancelled: false };
      queue.push(task);
      return {
        cancel: () => {
          task.cancelled = true;
        },
      };
    },
    get pending() {
      return queue.filter((task) => !task.cancelled).length;
    },
    /** Fires the next timer and lets the report it triggers settle (the storage is in memory). */
    async runNext() {
      let task = queue.shift();
      while (task?.cancelled) task = queue.shift();
      if (task === undefined) return false;
      task.run();
      await new Promise((resolve) => setImmediate(resolve));
      return true;
    },
    /** Fires timers until none is left; a timer that keeps rescheduling itself fails it. */
    async runAll() {
      let fired = 0;
      await repeatUntilDone("firing the scheduled timers", 10_000, async () => {
        if (!(await scheduler.runNext())) return true;
        fired += 1;
        return false;
      });
      return fired;
    },
  };
  return scheduler;
}

export const CAMPAIGN_DEFAULTS = {
  name: "Order updates",
  channel: "viber",
  category: "transactional",
  sender: "Tidings",
  template: "Hello {{name}}, your order {{order}} has shipped.",
  status: "active",
} as const;

/** A fresh world for sending: deps, an organization with an API key, shortcuts. */
export async function sendWorld(
  options: {
    provider?: ChannelProvider | undefined;
    links?: LinkSettings | undefined;
    calendar?: LocalCalendar | undefined;
  } = {},
) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const storage = memoryStorage();
  const ids = createIds(clock);
  const scheduler = manualScheduler();
  const sandbox = sandboxProvider({ scheduler, delayMs: 1000 });
  /** What the core reported through the `Telemetry` port, in order. */
  const reported: Array<Parameters<Telemetry["messageSent"]>[0]> = [];
  const deps = {
    storage,
    clock,
    ids,
    provider: options.provider ?? sandbox,
    urlPolicy: httpsOnly,
    secretBox: readableSecretBox,
    config: defaultConfig,
    links: options.links,
    calendar: options.calendar,
    telemetry: { messageSent: (send) => reported.push(send) } satisfies Telemetry,
  };
  sandbox.onReport(async (messageId, report) => {
    (await recordProviderReport(deps, messageId, report))._unsafeUnwrap();
  });
  const org = await seedOrganization(storage);
  const actor: Actor & { apiKeyId: string } = {
    organizationId: org.organization.id,
    apiKeyId: org.apiKey.id,
  };

  /** Creates a campaign through the use case (active Viber Transactional by default). */
  const campaign = async (overrides: Record<string, unknown> = {}) =>
    (await createCampaign(deps, actor, { ...CAMPAIGN_DEFAULTS, ...overrides }))._unsafeUnwrap();
  /** Creates a profile through the use case. */
  const profile = async (input: Record<string, unknown>) =>
    (await createProfile(deps, actor, input))._unsafeUnwrap();
  const send = (input: unknown, who: Actor & { apiKeyId: string } = actor) =>
    sendMessage(deps, who, input);
  /** The topics of a message's stored events, in order. */
  const topics = async (messageId: string) =>
    (await storage.raw.events(messageId)).map((event) => event.topic);
  /** An active subscription to every topic, so each event gets one outbox delivery. */
  const subscribeAll = () => seedWebhook(storage, org);

  return {
    clock,
    storage,
    ids,
    scheduler,
    sandbox,
    deps,
    org,
    actor,
    campaign,
    profile,
    send,
    topics,
    subscribeAll,
    reported,
  };
}

/** A send body to a phone number for the default campaign's placeholders. */
export const sendBody = (
  campaignId: string,
  phoneNumber: string,
  extra: Record<string, unknown> = {},
) => ({
  campaign_id: campaignId,
  recipient: { type: "phone_number", value: phoneNumber },
  params: { name: "Ada", order: "A-1001" },
  ...extra,
});
