import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import type { Deps } from "../deps.js";
import { type UnprocessableError, type ValidationError, validationError } from "../errors.js";
import type { CampaignRecord, LocalCalendar, ProfileRecord } from "../ports.js";
import { decideSchedule, type ScheduleDecision } from "../schedule/schedule-decision.js";

/** How far ahead a `send_at` may be (30 days). */
export const MAX_SEND_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

/** ISO 8601 date and time with an explicit offset (`Z` or `±HH:MM`). */
const WITH_OFFSET =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

/** `send_at` as the body takes it. */
export const sendAtSchema = v.pipe(
  v.string("must be a string."),
  v.check(
    (text) => WITH_OFFSET.test(text) && Number.isFinite(Date.parse(text)),
    "must be an ISO 8601 date and time with an offset, such as 2026-07-01T09:00:00+02:00.",
  ),
  v.metadata({
    openApi: {
      type: "string",
      format: "date-time",
      description:
        "When to send, at the earliest (at most 30 days ahead); the campaign's sending window " +
        "may hold it longer. Absent or past: now.",
      examples: ["2026-07-01T09:00:00+02:00"],
    },
  }),
);

/** The instant of a `send_at`, refused when it is more than 30 days ahead of `now`. */
export function checkSendAt(
  now: number,
  sendAt: string | undefined,
): Result<number | null, ValidationError> {
  if (sendAt === undefined) return ok(null);
  const at = Date.parse(sendAt);
  if (at - now > MAX_SEND_AHEAD_MS) {
    return err(
      validationError([
        { path: "send_at", rule: "max_ahead", message: "must be at most 30 days ahead." },
      ]),
    );
  }
  return ok(at);
}

/** Knows no zone and no holiday: a campaign with a window is then sendable only to profiles
 * with a `time_zone`. */
const NO_CALENDAR: LocalCalendar = { zonesOf: () => [], isPublicHoliday: () => false };

/**
 * The schedule decision of one send, once its recipient's profile is known: now, or held until
 * the first moment at or after `max(now, send_at)` inside the campaign's sending window in the
 * recipient's zone(s). The send path's only call about time, kept here on its own.
 */
export function scheduleOfSend(
  deps: Pick<Deps, "calendar">,
  campaign: Pick<CampaignRecord, "sendingWindow">,
  profile: Pick<ProfileRecord, "phoneNumber" | "timeZone">,
  now: number,
  sendAt: number | null,
): Result<ScheduleDecision, UnprocessableError> {
  return decideSchedule(deps.calendar ?? NO_CALENDAR, {
    window: campaign.sendingWindow,
    recipient: { phoneNumber: profile.phoneNumber, timeZone: profile.timeZone },
    now,
    sendAt,
  });
}
