import { getSettings, type SettingsView, updateSettings, validationError } from "@tidings/core";
import { err, ok } from "neverthrow";
import { organizationCommand } from "./organization.js";

/** The settings for a person: one line each. */
const describe = (s: SettingsView): string =>
  [
    `allowed_countries     ${s.allowed_countries === null ? "all" : s.allowed_countries.join(", ")}`,
    `blocked_number_types  ${s.blocked_number_types.join(", ") || "none"}`,
    `destination_limits    ${s.destination_limits.per_hour ?? "-"} per hour, ${s.destination_limits.per_day ?? "-"} per day`,
    `prefix_limits         ${s.prefix_limits.per_hour ?? "-"} per hour`,
    `country_daily_limits  ${
      Object.entries(s.country_daily_limits)
        .map(([country, limit]) => `${country} ${limit}`)
        .join(", ") || "none"
    }`,
  ].join("\n");

/** `settings get --org ORG`: the organization's abuse protection. */
export const settingsGet = organizationCommand({
  name: ["settings", "get"],
  summary: "Show an organization's settings (allowed countries, blocked number types, limits).",
  usage: "--org ORG",
  async run(context, organizationId) {
    const settings = await getSettings(context.runtime.deps, { organizationId, apiKeyId: null });
    if (settings.isErr()) return err(settings.error);
    return ok({ json: settings.value, human: describe(settings.value) });
  },
});

/**
 * `settings set --org ORG --json '{…}'`: changes the settings the JSON object names, as
 * `PATCH /v1/settings` does (the object is the command's one argument; `--json` prints JSON).
 */
export const settingsSet = organizationCommand({
  name: ["settings", "set"],
  summary: "Change an organization's settings from a JSON object, as PATCH /v1/settings does.",
  usage: '--org ORG \'{"destination_limits": {"per_hour": 10, "per_day": 30}}\'',
  positionals: { min: 1, max: 1 },
  async run(context, organizationId) {
    let input: unknown;
    try {
      input = JSON.parse(context.positionals[0] ?? "");
    } catch {
      return err(
        validationError(
          [{ path: "body", message: "must be a JSON object of settings.", rule: "json" }],
          "The settings are not valid JSON.",
        ),
      );
    }
    const settings = await updateSettings(
      context.runtime.deps,
      { organizationId, apiKeyId: null },
      input,
    );
    if (settings.isErr()) return err(settings.error);
    return ok({ json: settings.value, human: describe(settings.value) });
  },
});
