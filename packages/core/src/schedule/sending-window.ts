import * as v from "valibot";
import { strictFields } from "../support/parse.js";

/** The days of the week, as a sending window names them, Sunday first (`Date#getUTCDay`). */
export const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * When a campaign's messages may reach a recipient, in the recipient's local time: on `days`,
 * from `start` (inclusive) to `end` (exclusive), both minutes after local midnight, `end` at
 * most 1440 (`"24:00"`, the end of the day). Public holidays of the number's country are left
 * out when `skipPublicHolidays` is set.
 */
export interface SendingWindow {
  days: Weekday[];
  start: string;
  end: string;
  skipPublicHolidays: boolean;
}

/** The window the console and the CLI offer for promotional campaigns. */
export const RECOMMENDED_SENDING_WINDOW: SendingWindow = {
  days: ["mon", "tue", "wed", "thu", "fri", "sat"],
  start: "09:00",
  end: "20:00",
  skipPublicHolidays: true,
};

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an `HH:MM` (or `24:00`) the schema accepted. */
export const minutesOf = (time: string): number =>
  time === "24:00" ? 1440 : Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

const time = (allowEndOfDay: boolean) =>
  v.pipe(
    v.string("must be a string."),
    v.check(
      (text) => HH_MM.test(text) || (allowEndOfDay && text === "24:00"),
      allowEndOfDay
        ? 'must be a time "HH:MM" from 00:00 to 23:59, or "24:00".'
        : 'must be a time "HH:MM" from 00:00 to 23:59.',
    ),
  );

const days = v.pipe(
  v.array(
    v.picklist(WEEKDAYS, `must be one of ${WEEKDAYS.map((d) => `"${d}"`).join(", ")}.`),
    "must be an array of days.",
  ),
  v.minLength(1, "must name at least one day."),
  v.check((list) => new Set(list).size === list.length, "must not name a day twice."),
);

/** A sending window as the API takes it (`null` for none). */
export const sendingWindowInput = v.nullable(
  v.pipe(
    strictFields(
      {
        days,
        start: time(false),
        end: time(true),
        skip_public_holidays: v.optional(v.boolean("must be true or false.")),
      },
      "must be null or an object with days, start and end.",
    ),
    v.forward(
      v.partialCheck(
        [["start"], ["end"]],
        (window) => minutesOf(window.start) < minutesOf(window.end),
        "must be after start.",
      ),
      ["end"],
    ),
  ),
);

export type SendingWindowInput = v.InferOutput<typeof sendingWindowInput>;

/** The window a parsed input asks for. */
export const toSendingWindow = (input: SendingWindowInput): SendingWindow | null =>
  input === null
    ? null
    : {
        // In the week's order, whatever order the request named them in.
        days: WEEKDAYS.filter((day) => input.days.includes(day)),
        start: input.start,
        end: input.end,
        skipPublicHolidays: input.skip_public_holidays ?? false,
      };

/** The API's shape of a window. */
export interface SendingWindowView {
  days: Weekday[];
  start: string;
  end: string;
  skip_public_holidays: boolean;
}

export const toSendingWindowView = (window: SendingWindow | null): SendingWindowView | null =>
  window === null
    ? null
    : {
        days: [...window.days],
        start: window.start,
        end: window.end,
        skip_public_holidays: window.skipPublicHolidays,
      };
