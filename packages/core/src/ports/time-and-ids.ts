/**
 * The source of time, the recipient's local calendar and new ids.
 * The conventions every port follows are in `../ports.ts`.
 */

/** The source of time, so every rule can be tested with a fixed or manual clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * Where a phone number may be and which days are public holidays there, from data an adapter
 * loads once (core reads no files). Both answers are plain lookups, fast enough for every send.
 */
export interface LocalCalendar {
  /**
   * The IANA time zones the number's prefix may be in (several for a prefix that spans
   * zones); `[]` when the data knows none.
   */
  zonesOf(phoneNumber: string): readonly string[];
  /** Whether `localDate` (`YYYY-MM-DD`) is a public holiday in `country` (ISO 3166-1 alpha-2). */
  isPublicHoliday(country: string, localDate: string): boolean;
}

/** The source of ids. */
export interface Ids {
  /** A fresh UUID v7 (RFC 9562), strictly increasing within one process. */
  uuidv7(): string;
  /** A fresh time-ordered public id such as `prf_01jd…`: prefix, `_`, 26 Crockford base32 chars. */
  prefixed(prefix: IdPrefix): string;
}

export type IdPrefix = "prf" | "cmp" | "whk" | "key" | "org" | "lst";

/** A stored record with its internal insertion sequence, the cursor of newest-first pages. */
export type Sequenced<T> = T & { seq: number };
