import { ok } from "neverthrow";
import type { Command } from "../command.js";

/** `migrate`: applies pending migrations (as every command does first) and says what it did. */
export const migrateCommand: Command = {
  name: ["migrate"],
  summary: "Apply pending database migrations and exit.",
  usage: "",
  options: {},
  async run({ runtime }) {
    const { applied, version } = runtime.migrations;
    return ok({
      json: { applied, version },
      human:
        applied.length === 0
          ? `The schema is up to date (version ${version}).`
          : `Applied migration${applied.length === 1 ? "" : "s"} ${applied.join(", ")}; the schema is at version ${version}.`,
    });
  },
};
