import { getSettings, updateSettings, updateSettingsInput } from "@tidings/core";
import { fromResult } from "../answer.js";
import type { Route } from "../route.js";
import { callWithBody } from "./use-case-handlers.js";

/** The organization's settings: abuse protection for its sends. */
export const settingsRoutes: Route[] = [
  {
    method: "GET",
    path: "/v1/settings",
    scope: "settings:manage",
    doc: {
      operationId: "getSettings",
      summary:
        "The organization's settings: allowed countries, blocked number types and send limits.",
      tag: "Settings",
      success: { status: 200, schema: "Settings", description: "The settings." },
      errors: [],
    },
    handle: async ({ deps, actor }) => fromResult(await getSettings(deps, actor)),
  },
  {
    method: "PATCH",
    path: "/v1/settings",
    scope: "settings:manage",
    doc: {
      operationId: "updateSettings",
      summary: "Change some settings; each field given replaces its setting, null turns it off.",
      tag: "Settings",
      body: {
        name: "UpdateSettingsRequest",
        schema: updateSettingsInput,
        example: {
          allowed_countries: ["GB", "IE"],
          destination_limits: { per_hour: 10, per_day: 30 },
          prefix_limits: { per_hour: 100 },
        },
      },
      success: { status: 200, schema: "Settings", description: "The settings as changed." },
      errors: [400, 413, 415],
    },
    handle: callWithBody(updateSettings),
  },
];
