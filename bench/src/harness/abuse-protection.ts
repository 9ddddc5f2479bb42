// What the send benchmarks turn on so the checks a real OTP endpoint runs are in the figure:
// every abuse limit, high enough never to trip, and a table of suppressions.
import { call, inParallel } from "./api.js";
import type { Fixture } from "./fixture.js";
import { phoneNumber } from "./phones.js";
import { tidingsCli } from "./tidings-process.js";

/** The limits, each far above what a run sends (and within what the settings accept). */
const HIGH = 100_000_000;

/** The organization's abuse limits as the benchmarks set them: on, and never reached. */
export const BENCH_LIMITS = {
  destination_limits: { per_hour: HIGH, per_day: HIGH },
  prefix_limits: { per_hour: HIGH },
  country_daily_limits: { US: HIGH },
};

/** How many numbers the benchmarks suppress before they run; none of them is sent to. */
export const BENCH_SUPPRESSIONS = 3000;

/** Numbers from here on are suppressed; the seeded and created profiles' are far below. */
const SUPPRESSED_FROM = 30_000_000;

/**
 * Whether a run turns the checks on: `BENCH_ABUSE=off` leaves the limits off and seeds no
 * suppressions, so the difference of two runs is what the checks cost. Such a run is partial.
 */
export const ABUSE_CHECKS_ON = process.env.BENCH_ABUSE !== "off";

/** Turns every abuse limit of the fixture's organization on (before its server starts). */
export async function turnLimitsOn(fixture: Fixture, bin?: string): Promise<void> {
  if (!ABUSE_CHECKS_ON) return;
  await tidingsCli(
    ["settings", "set", "--org", fixture.orgId, JSON.stringify(BENCH_LIMITS)],
    fixture.env,
    bin,
  );
}

/** Suppresses `BENCH_SUPPRESSIONS` numbers through the running server's API, half per channel. */
export async function seedSuppressions(baseUrl: string, token: string): Promise<void> {
  if (!ABUSE_CHECKS_ON) return;
  await inParallel(BENCH_SUPPRESSIONS, 16, async (i) => {
    const answer = await call(baseUrl, token, "POST", "/v1/suppressions", {
      channel: i % 2 === 0 ? "viber" : "sms",
      phone_number: phoneNumber(SUPPRESSED_FROM + i),
    });
    if (answer.status !== 201) throw new Error(`suppressing: ${answer.status} ${answer.body}`);
  });
}
