import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type {
  NumberType,
  OrganizationSettings,
  OrganizationSettingsRecord,
  Repositories,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { updateSettingsInput } from "./settings-input.js";

/** Refused unless an organization says otherwise: nobody sends an OTP to these legitimately. */
export const DEFAULT_BLOCKED_NUMBER_TYPES: readonly NumberType[] = [
  "PREMIUM_RATE",
  "SHARED_COST",
  "UAN",
];

/** The settings of an organization that never changed them: every limit off. */
export const defaultSettings = (): OrganizationSettings => ({
  allowedCountries: null,
  blockedNumberTypes: [...DEFAULT_BLOCKED_NUMBER_TYPES],
  destinationLimits: { perHour: null, perDay: null },
  prefixLimits: { perHour: null },
  countryDailyLimits: {},
});

/** The values docs/production.md recommends, which the console offers in one click. */
export const RECOMMENDED_LIMITS = {
  destination_limits: { per_hour: 10, per_day: 30 },
  prefix_limits: { per_hour: 100 },
} as const;

/** The settings as the API shows them. */
export interface SettingsView {
  allowed_countries: string[] | null;
  blocked_number_types: NumberType[];
  destination_limits: { per_hour: number | null; per_day: number | null };
  prefix_limits: { per_hour: number | null };
  country_daily_limits: Record<string, number>;
  /** When they last changed; `null` while they are the defaults. */
  updated_at: string | null;
}

export const toSettingsView = (
  settings: OrganizationSettings,
  updatedAt: string | null,
): SettingsView => ({
  allowed_countries: settings.allowedCountries === null ? null : [...settings.allowedCountries],
  blocked_number_types: [...settings.blockedNumberTypes],
  destination_limits: {
    per_hour: settings.destinationLimits.perHour,
    per_day: settings.destinationLimits.perDay,
  },
  prefix_limits: { per_hour: settings.prefixLimits.perHour },
  country_daily_limits: { ...settings.countryDailyLimits },
  updated_at: updatedAt,
});

/** The organization's settings, the defaults when it stored none. */
export async function readSettings(
  repositories: Pick<Repositories, "settings">,
  organizationId: string,
): Promise<OrganizationSettings & { updatedAt: string | null }> {
  const stored = await repositories.settings.get(organizationId);
  return stored ?? { ...defaultSettings(), updatedAt: null };
}

/** GET /v1/settings. */
export function getSettings(
  deps: Pick<Deps, "storage">,
  actor: Actor,
): ResultAsync<SettingsView, DomainError> {
  return useCase("getSettings", async () => {
    const settings = await readSettings(deps.storage, actor.organizationId);
    return ok(toSettingsView(settings, settings.updatedAt));
  });
}

/** PATCH /v1/settings: each field given replaces its setting; the rest stay. */
export function updateSettings(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  input: unknown,
): ResultAsync<SettingsView, DomainError> {
  return useCase("updateSettings", async () => {
    const parsed = parseInput(updateSettingsInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const patch = parsed.value;
    const record = await deps.storage.transaction(async (tx) => {
      const current = await readSettings(tx, actor.organizationId);
      const next: OrganizationSettingsRecord = {
        organizationId: actor.organizationId,
        allowedCountries:
          patch.allowed_countries === undefined
            ? current.allowedCountries
            : patch.allowed_countries,
        blockedNumberTypes: patch.blocked_number_types ?? current.blockedNumberTypes,
        destinationLimits:
          patch.destination_limits === undefined
            ? current.destinationLimits
            : patch.destination_limits === null
              ? { perHour: null, perDay: null }
              : {
                  perHour:
                    patch.destination_limits.per_hour === undefined
                      ? current.destinationLimits.perHour
                      : patch.destination_limits.per_hour,
                  perDay:
                    patch.destination_limits.per_day === undefined
                      ? current.destinationLimits.perDay
                      : patch.destination_limits.per_day,
                },
        prefixLimits:
          patch.prefix_limits === undefined
            ? current.prefixLimits
            : {
                perHour:
                  patch.prefix_limits === null
                    ? null
                    : patch.prefix_limits.per_hour === undefined
                      ? current.prefixLimits.perHour
                      : patch.prefix_limits.per_hour,
              },
        countryDailyLimits:
          patch.country_daily_limits === undefined
            ? current.countryDailyLimits
            : { ...(patch.country_daily_limits ?? {}) },
        updatedAt: isoAt(deps.clock.now()),
      };
      await tx.settings.put(next);
      return next;
    });
    return ok(toSettingsView(record, record.updatedAt));
  });
}
