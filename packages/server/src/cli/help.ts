import type { Command } from "./command.js";
import {
  campaignsActivate,
  campaignsCreate,
  campaignsDeactivate,
  campaignsList,
} from "./commands/campaigns.js";
import { keysCreate, keysList, keysRevoke } from "./commands/keys.js";
import { migrateCommand } from "./commands/migrate.js";
import { orgsCreate } from "./commands/orgs.js";
import { profilesImport } from "./commands/profiles-import.js";
import { profilesListsAdd } from "./commands/profiles-lists.js";
import { serveCommand } from "./commands/serve.js";
import { workerCommand } from "./commands/worker.js";

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  workerCommand,
  migrateCommand,
  orgsCreate,
  keysCreate,
  keysList,
  keysRevoke,
  campaignsCreate,
  campaignsActivate,
  campaignsDeactivate,
  campaignsList,
  profilesImport,
  profilesListsAdd,
];

const synopsis = (command: Command): string =>
  ["tidings", ...command.name, command.usage, "[--json]"].filter((part) => part !== "").join(" ");

/** The help of one command. */
export function commandHelp(command: Command): string {
  return `usage: ${synopsis(command)}\n\n${command.summary}`;
}

/** The list of every command. */
export function overallHelp(): string {
  const lines = COMMANDS.map(
    (command) => `  ${command.name.join(" ").padEnd(22)}${command.summary}`,
  );
  return [
    "usage: tidings <command> [options] [--json]",
    "",
    "Commands:",
    ...lines,
    "",
    "Every command applies pending migrations first. With --json, stdout holds one JSON",
    "document. Configuration comes from the environment (TIDINGS_DATABASE_URL, PORT, …).",
    "Run `tidings <command> --help` for a command's options.",
  ].join("\n");
}
