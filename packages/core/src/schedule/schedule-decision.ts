import { err, ok, type Result } from "neverthrow";
import type { UnprocessableError } from "../errors.js";
import type { LocalCalendar } from "../ports.js";
import { numberCountry, recipientZones } from "./recipient-zones.js";
import { RELEASE_HORIZON_MS, releaseTime } from "./release-time.js";
import type { SendingWindow } from "./sending-window.js";

/** What decides when one message may go out. */
export interface ScheduleQuery {
  /** The campaign's window, or `null` for none. */
  window: SendingWindow | null;
  recipient: { phoneNumber: string; timeZone: string | null };
  now: number;
  /** The send's `send_at` in ms, or `null` for "now". */
  sendAt: number | null;
}

/** When a message goes out: `now`, or held until `at`. */
export type ScheduleDecision = { release: "now" } | { release: "later"; at: number };

const HORIZON_DAYS = RELEASE_HORIZON_MS / (24 * 60 * 60 * 1000);

/** 422: no moment to send in the next days, or no zone to judge the window by. */
export const noSendingTime = (noZone: boolean): UnprocessableError => ({
  type: "unprocessable",
  code: "no_sending_time",
  message: noZone
    ? "The recipient's time zone is unknown (its number's prefix has no zone data), so no " +
      "moment can be found inside the campaign's sending window. Set the profile's time_zone."
    : `No moment in the next ${HORIZON_DAYS} days is inside the campaign's sending window in ` +
      "every time zone the recipient's number may be in. Set the profile's time_zone to the " +
      "recipient's own zone, or widen the window.",
});

/**
 * The schedule decision of one send: the first moment at or after `max(now, send_at)` inside
 * the campaign's window in every zone the recipient may be in (the window skipping the public
 * holidays of the number's country when it says so). Without a window only `send_at` counts.
 */
export function decideSchedule(
  calendar: LocalCalendar,
  query: ScheduleQuery,
): Result<ScheduleDecision, UnprocessableError> {
  const notBefore = Math.max(query.now, query.sendAt ?? query.now);
  let at = notBefore;
  if (query.window !== null) {
    const zones = recipientZones(calendar, query.recipient);
    if (zones.length === 0) return err(noSendingTime(true));
    const country = numberCountry(query.recipient.phoneNumber);
    const found = releaseTime({
      window: query.window,
      zones,
      notBefore,
      isHoliday: (date) => country !== null && calendar.isPublicHoliday(country, date),
    });
    if (found === null) return err(noSendingTime(false));
    at = found;
  }
  return at <= query.now ? ok({ release: "now" }) : ok({ release: "later", at });
}
