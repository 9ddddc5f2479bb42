import type { Writable } from "node:stream";
import type { Command } from "./command.js";
import {
  campaignsActivate,
  campaignsCreate,
  campaignsDeactivate,
  campaignsGet,
  campaignsList,
  campaignsUpdate,
} from "./commands/campaigns.js";
import {
  sendersAssign,
  sendersList,
  sendersUnassign,
  suppressionsAdd,
  suppressionsExport,
  suppressionsImport,
  suppressionsList,
  suppressionsRemove,
} from "./commands/consent.js";
import { consoleLink, consoleSessionsRevoke } from "./commands/console.js";
import { keysCreate, keysList, keysRevoke } from "./commands/keys.js";
import { migrateCommand } from "./commands/migrate.js";
import { orgsCreate, orgsGet, orgsList } from "./commands/orgs.js";
import { privacyErase, privacyExport, profilesErase, profilesExport } from "./commands/privacy.js";
import { profilesImport } from "./commands/profiles-import.js";
import { profilesListsAdd } from "./commands/profiles-lists.js";
import { providersCheck } from "./commands/providers.js";
import { serveCommand } from "./commands/serve.js";
import { settingsGet, settingsSet } from "./commands/settings.js";
import { workerCommand } from "./commands/worker.js";

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  workerCommand,
  migrateCommand,
  orgsCreate,
  orgsList,
  orgsGet,
  keysCreate,
  keysList,
  keysRevoke,
  campaignsCreate,
  campaignsUpdate,
  campaignsGet,
  campaignsActivate,
  campaignsDeactivate,
  campaignsList,
  settingsGet,
  settingsSet,
  profilesImport,
  profilesListsAdd,
  profilesErase,
  profilesExport,
  privacyErase,
  privacyExport,
  providersCheck,
  sendersAssign,
  sendersList,
  sendersUnassign,
  suppressionsList,
  suppressionsAdd,
  suppressionsRemove,
  suppressionsImport,
  suppressionsExport,
  consoleLink,
  consoleSessionsRevoke,
];

const synopsis = (command: Command): string =>
  ["tidings", ...command.name, command.usage, "[--json]"].filter((part) => part !== "").join(" ");

/** Help as `--json` prints it, and as text for a person. */
export interface Help {
  document: Record<string, unknown>;
  text: string;
}

/** Every option a command takes, the shared `--json` and `--help` included. */
const optionsOf = (command: Command) => [
  ...Object.entries(command.options).map(([name, spec]) => ({
    name: `--${name}`,
    type: spec.type,
    required: command.required?.includes(name) ?? false,
    ...(spec.type === "string" ? { value: spec.value ?? name.toUpperCase() } : {}),
    description: spec.help,
  })),
  {
    name: "--json",
    type: "boolean",
    required: false,
    description: "Print one JSON document on stdout (errors as JSON on stderr).",
  },
  {
    name: "--env-file",
    type: "string",
    required: false,
    value: "FILE",
    description:
      "Read settings from FILE (NAME=value lines) as well as the environment, which wins where both set one. Give serve and every other command the same file.",
  },
  { name: "--help", type: "boolean", required: false, description: "Print this help." },
];

/** Lines of two columns, the first padded to the widest so the second lines up. */
const columns = (rows: ReadonlyArray<readonly [string, string]>): string[] => {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`.trimEnd());
};

/** The help of one command. */
export function commandHelp(command: Command): Help {
  const options = optionsOf(command);
  const optionLines = columns(
    options.map((option) => [
      "value" in option ? `${option.name} ${option.value}` : option.name,
      `${option.description}${option.required ? " Required." : ""}`,
    ]),
  );
  return {
    document: {
      command: command.name.join(" "),
      usage: synopsis(command),
      summary: command.summary,
      ...(command.details ? { details: command.details } : {}),
      options,
    },
    text: [
      `usage: ${synopsis(command)}`,
      "",
      command.summary,
      "",
      "Options:",
      ...optionLines,
      ...(command.details ?? []),
    ].join("\n"),
  };
}

const NOTES = [
  "Every command applies pending migrations first. With --json, stdout holds one JSON",
  "document. Configuration comes from the environment (TIDINGS_DATABASE_URL, PORT, …) and,",
  "with --env-file FILE, from FILE too; give serve and the other commands the same file.",
  "Run `tidings <command> --help` for a command's options; `tidings --version` prints the version.",
];

/** The list of every command, or of a group's (`tidings keys --help`). */
export function overallHelp(commands: readonly Command[] = COMMANDS): Help {
  const lines = columns(commands.map((command) => [command.name.join(" "), command.summary]));
  return {
    document: {
      usage: "tidings <command> [options] [--json]",
      commands: commands.map((command) => ({
        command: command.name.join(" "),
        usage: synopsis(command),
        summary: command.summary,
      })),
      notes: NOTES.join(" "),
    },
    text: [
      "usage: tidings <command> [options] [--json]",
      "",
      "Commands:",
      ...lines,
      "",
      ...NOTES,
    ].join("\n"),
  };
}

/** The commands whose first word is `group` (`keys` → keys create, keys list, keys revoke). */
export const commandsOf = (group: string | undefined): Command[] =>
  COMMANDS.filter((command) => command.name[0] === group);

/** Writes help: the JSON document with `--json`, the text otherwise. */
export function writeHelp(out: Writable, json: boolean, help: Help): void {
  out.write(json ? `${JSON.stringify(help.document, null, 2)}\n` : `${help.text}\n`);
}
