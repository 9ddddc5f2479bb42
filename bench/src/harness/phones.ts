const AREA_CODES = ["415", "212", "646", "917", "718"];
const PER_AREA = 8_000_000;

/**
 * Consecutive `n` are this far apart within an area, so a benchmark's first thousand numbers lie
 * in a thousand ranges (numbers sharing all but their last 3 digits), as real recipients do,
 * rather than filling one range as an SMS pumping attack would. Prime, so coprime with
 * `PER_AREA`: every number of the area is still reached once.
 */
const STRIDE = 1009;

/**
 * The `n`th of 40 million distinct US numbers that libphonenumber accepts as valid, already in
 * E.164, so seeded rows and API requests name the same numbers.
 */
export function phoneNumber(n: number): string {
  const area = AREA_CODES[Math.floor(n / PER_AREA) % AREA_CODES.length]!;
  return `+1${area}${2_000_000 + (((n % PER_AREA) * STRIDE) % PER_AREA)}`;
}
