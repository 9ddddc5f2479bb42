import type { Deps } from "../deps.js";
import type { CampaignRecord, MessageRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { sendFallbackSms } from "./hand-off.js";
import { scheduleOfSend } from "./send-schedule.js";

/** How long a worker holds a fallback job it took before another may take it (60 s). */
export const DEFAULT_FALLBACK_LEASE_MS = 60_000;

/**
 * Sends the SMS of every fallback after the fact that is due, at most `limit`: each job is
 * taken with a compare-and-set of its due time to a lease, so of several workers one sends it;
 * the job ends once the SMS was handed over (or refused, which fails the message). A worker that
 * dies holding a job leaves it to be taken again when its lease ends: the SMS is sent at least
 * once, and twice only if the process died between the provider's answer and the job's end.
 * Answers how many jobs this call ran.
 */
export async function runDueFallbacks(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "secretBox" | "calendar">,
  options: { limit?: number | undefined; leaseMs?: number | undefined } = {},
): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.storage.messages.listFallbacksDue(isoAt(now), options.limit ?? 100);
  let ran = 0;
  for (const id of due) {
    const message = await deps.storage.messages.getById(id);
    if (message?.fallbackDueAt === null || message === null) continue;
    const lease = isoAt(now + (options.leaseMs ?? DEFAULT_FALLBACK_LEASE_MS));
    if (!(await deps.storage.messages.moveFallback(id, message.fallbackDueAt, lease))) continue;
    // A message that expired or failed meanwhile is not sent again.
    if (message.status === "sent") {
      const campaign = await deps.storage.campaigns.get(message.organizationId, message.campaignId);
      const wait = await windowWait(deps, message, campaign, now);
      if (wait !== null) {
        // Outside the campaign's window: the job moves to its next opening, before the
        // message expires; with none before then, the job ends and the message expires.
        await deps.storage.messages.moveFallback(id, lease, wait === "never" ? null : isoAt(wait));
        ran += 1;
        continue;
      }
      await sendFallbackSms(deps, { ...message, fallbackDueAt: lease }, campaign);
    }
    await deps.storage.messages.moveFallback(id, lease, null);
    ran += 1;
  }
  return ran;
}

/**
 * Whether a fallback SMS due `now` must wait for its campaign's sending window: `null` when it
 * may go now (no window, or inside it), the window's next opening when that comes before the
 * message expires, else `"never"` (the message is left to expire, as is one whose recipient's
 * zone is no longer known).
 */
async function windowWait(
  deps: Pick<Deps, "storage" | "calendar">,
  message: MessageRecord,
  campaign: CampaignRecord | null,
  now: number,
): Promise<number | "never" | null> {
  if (campaign?.sendingWindow == null) return null;
  const profile = await deps.storage.profiles.get(message.organizationId, message.profileId);
  const decision = scheduleOfSend(
    deps,
    campaign,
    { phoneNumber: message.phoneNumber, timeZone: profile?.timeZone ?? null },
    now,
    null,
  );
  if (decision.isErr()) return "never";
  if (decision.value.release === "now") return null;
  return decision.value.at < Date.parse(message.expiresAt) ? decision.value.at : "never";
}
