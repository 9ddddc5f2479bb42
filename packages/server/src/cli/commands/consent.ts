import {
  addSuppression,
  type Channel,
  type DomainError,
  exportSuppressions,
  type Issue,
  isoAt,
  listSuppressions,
  removeSuppression,
  type SuppressionView,
} from "@tidings/core";
import { err, ok, type ResultAsync } from "neverthrow";
import { detectFormat, mustRead, readRows } from "../../import/read-rows.js";
import { type Command, type CommandContext, ORG_OPTION } from "../command.js";
import { UsageError } from "../usage-error.js";
import { findOrganization, organizationCommand } from "./organization.js";

const CHANNEL_OPTION = {
  type: "string" as const,
  value: "sms|viber",
  help: "The channel: sms or viber.",
};

const channelOf = (value: unknown): Channel => {
  if (value !== "sms" && value !== "viber") {
    throw new UsageError(`--channel must be sms or viber, not ${JSON.stringify(value)}.`);
  }
  return value;
};

/**
 * A command about one sender of the `--org` organization on `--channel`: `change` writes the
 * operator's word and says whether anything changed, `answer` says what came of it.
 */
function senderCommand(
  command: Pick<Command, "name" | "summary">,
  change: (
    storage: CommandContext["runtime"]["deps"]["storage"],
    at: { organizationId: string; channel: Channel; sender: string; now: number },
  ) => Promise<boolean>,
  answer: (
    done: { organization_id: string; channel: Channel; sender: string },
    changed: boolean,
  ) => { json: unknown; human: string },
): Command {
  return {
    ...command,
    usage: "SENDER --org ORG --channel sms|viber",
    options: { org: ORG_OPTION, channel: CHANNEL_OPTION },
    required: ["org", "channel"],
    positionals: { min: 1, max: 1 },
    validate(flags) {
      channelOf(flags.channel);
    },
    async run(context) {
      const org = await findOrganization(context);
      if (org.isErr()) return err(org.error);
      const channel = channelOf(context.flags.channel);
      const sender = (context.positionals[0] ?? "").trim();
      if (sender === "") throw new UsageError("SENDER must not be empty.");
      const { storage, clock } = context.runtime.deps;
      const at = { organizationId: org.value, channel, sender, now: clock.now() };
      const changed = await change(storage, at);
      return ok(answer({ organization_id: org.value, channel, sender }, changed));
    },
  };
}

/** `senders assign --org ORG --channel C SENDER`: the operator's word that a sender is ORG's. */
export const sendersAssign = senderCommand(
  {
    name: ["senders", "assign"],
    summary:
      "Assign a sender (a number, short code or Viber name) to an organization: replies to it are its own.",
  },
  (storage, { now, ...assignment }) =>
    storage.senders.assign({ ...assignment, createdAt: isoAt(now) }),
  (done, added) => ({
    json: { ...done, assigned: true, new: added },
    human: added
      ? `Assigned ${done.channel} sender ${done.sender} to ${done.organization_id}.`
      : `${done.channel} sender ${done.sender} was already assigned to ${done.organization_id}.`,
  }),
);

/** `senders unassign --org ORG --channel C SENDER`. */
export const sendersUnassign = senderCommand(
  { name: ["senders", "unassign"], summary: "Take a sender's assignment from an organization." },
  (storage, at) => storage.senders.unassign(at.organizationId, at.channel, at.sender),
  (done, removed) => ({
    json: { ...done, unassigned: removed },
    human: removed
      ? `Unassigned ${done.channel} sender ${done.sender} from ${done.organization_id}.`
      : `${done.channel} sender ${done.sender} was not assigned to ${done.organization_id}.`,
  }),
);

/** `senders list [--org ORG]`. */
export const sendersList: Command = {
  name: ["senders", "list"],
  summary: "List sender assignments, of every organization or of one.",
  usage: "[--org ORG]",
  options: { org: { ...ORG_OPTION, help: "Only this organization's assignments." } },
  async run(context) {
    let organizationId: string | undefined;
    if (context.flags.org !== undefined) {
      const org = await findOrganization(context);
      if (org.isErr()) return err(org.error);
      organizationId = org.value;
    }
    const rows = await context.runtime.deps.storage.senders.list(organizationId);
    const json = rows.map((r) => ({
      organization_id: r.organizationId,
      channel: r.channel,
      sender: r.sender,
      created_at: r.createdAt,
    }));
    return ok({
      json,
      human:
        json.length === 0
          ? "No sender is assigned."
          : json.map((r) => `${r.organization_id}  ${r.channel}  ${r.sender}`).join("\n"),
    });
  },
};

const suppressionLine = (s: SuppressionView): string =>
  `${s.channel}  ${s.phone_number ?? s.phone_number_hash.slice(0, 16)}  ${s.source}  ${s.created_at}${s.note ? `  ${s.note}` : ""}`;

/** Every suppression of the organization (the API's pages, walked), newest first. */
async function allSuppressions(
  context: Parameters<Command["run"]>[0],
  organizationId: string,
  filter: Record<string, string>,
): Promise<SuppressionView[] | Error> {
  const actor = { organizationId, apiKeyId: null };
  const all: SuppressionView[] = [];
  let cursor: string | null = null;
  for (;;) {
    const query: Record<string, string> = { ...filter, limit: "100" };
    if (cursor !== null) query.cursor = cursor;
    const page = await listSuppressions(context.runtime.deps, actor, query);
    if (page.isErr()) return new Error(page.error.message);
    all.push(...page.value.data);
    cursor = page.value.meta.next_cursor;
    if (cursor === null) return all;
  }
}

/** `suppressions list --org ORG [--channel C] [--phone-number P]`. */
export const suppressionsList: Command = {
  name: ["suppressions", "list"],
  summary: "List an organization's suppressions, newest first.",
  usage: "--org ORG [--channel sms|viber] [--phone-number E164]",
  options: {
    org: ORG_OPTION,
    channel: CHANNEL_OPTION,
    "phone-number": { type: "string", help: "Only this number's suppressions." },
  },
  required: ["org"],
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const filter: Record<string, string> = {};
    if (context.flags.channel !== undefined) filter.channel = channelOf(context.flags.channel);
    if (typeof context.flags["phone-number"] === "string") {
      filter.phone_number = context.flags["phone-number"];
    }
    const all = await allSuppressions(context, org.value, filter);
    if (all instanceof Error) throw new UsageError(all.message);
    return ok({
      json: all,
      human: all.length === 0 ? "No suppression." : all.map(suppressionLine).join("\n"),
    });
  },
};

/** The options of a command about one number's suppression on one channel. */
const NUMBER_OPTIONS = {
  org: ORG_OPTION,
  channel: CHANNEL_OPTION,
  "phone-number": { type: "string", help: "The number, E.164 or national with +." },
} as const;

/**
 * A command that adds or lifts one number's suppression as the API would, for the `--org`
 * organization with no key: `change` is the core's use case, given the flags as its input.
 */
function suppressionCommand<T>(
  command: Pick<Command, "name" | "summary" | "usage"> & { noteHelp: string },
  change: (
    deps: CommandContext["runtime"]["deps"],
    actor: { organizationId: string; apiKeyId: null },
    input: Record<string, unknown>,
  ) => ResultAsync<T, DomainError>,
  answer: (value: T) => { json: unknown; human: string },
): Command {
  return {
    name: command.name,
    summary: command.summary,
    usage: command.usage,
    options: { ...NUMBER_OPTIONS, note: { type: "string", help: command.noteHelp } },
    required: ["org", "channel", "phone-number"],
    async run(context) {
      const org = await findOrganization(context);
      if (org.isErr()) return err(org.error);
      const changed = await change(
        context.runtime.deps,
        { organizationId: org.value, apiKeyId: null },
        {
          channel: channelOf(context.flags.channel),
          phone_number: context.flags["phone-number"],
          ...(typeof context.flags.note === "string" ? { note: context.flags.note } : {}),
        },
      );
      return changed.isErr() ? err(changed.error) : ok(answer(changed.value));
    },
  };
}

/** `suppressions add --org ORG --channel C --phone-number P [--note N]`. */
export const suppressionsAdd = suppressionCommand(
  {
    name: ["suppressions", "add"],
    summary: "Suppress a number on a channel (source api): nothing is sent to it there any more.",
    usage: "--org ORG --channel sms|viber --phone-number E164 [--note TEXT]",
    noteHelp: "Why (for example, asked by phone).",
  },
  addSuppression,
  (added) => ({ json: added, human: `Suppressed: ${suppressionLine(added)}` }),
);

/** `suppressions remove --org ORG --channel C --phone-number P [--note N]`. */
export const suppressionsRemove = suppressionCommand(
  {
    name: ["suppressions", "remove"],
    summary:
      "Lift a suppression; one the person asked for (inbound or provider) needs --note saying why.",
    usage: "--org ORG --channel sms|viber --phone-number E164 [--note TEXT]",
    noteHelp: "Why the suppression is lifted.",
  },
  removeSuppression,
  () => ({ json: { removed: true }, human: "Suppression lifted." }),
);

/** What an import of an opt-out list came to; rejected rows carry their file line. */
export interface SuppressionImportReport {
  file: string;
  rows: number;
  added: number;
  rejected: Array<{ line: number; issues: Issue[] }>;
}

/**
 * `suppressions import --org ORG --file F`: an opt-out list brought from another tool, CSV with
 * a header or JSON lines of `phone_number`, `channel` (sms when absent) and `note`. Each valid
 * row is suppressed (source api); the rest are listed like the profile import's.
 */
export const suppressionsImport: Command = {
  name: ["suppressions", "import"],
  summary:
    "Import an opt-out list (CSV with a header, or JSON lines): phone_number, channel, note.",
  usage: "--org ORG --file FILE",
  options: {
    org: ORG_OPTION,
    file: { type: "string", help: "A CSV file with a header row, or JSON lines." },
  },
  required: ["org", "file"],
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const file = String(context.flags.file);
    await mustRead(file);
    const actor = { organizationId: org.value, apiKeyId: null };
    const report: SuppressionImportReport = { file, rows: 0, added: 0, rejected: [] };
    for await (const entry of readRows(file, await detectFormat(file))) {
      report.rows += 1;
      if ("error" in entry) {
        report.rejected.push({ line: entry.row, issues: [{ path: "line", message: entry.error }] });
        continue;
      }
      const data = entry.data as Record<string, unknown>;
      const input = {
        channel: data.channel === undefined || data.channel === "" ? "sms" : data.channel,
        phone_number: data.phone_number,
        ...(data.note === undefined || data.note === "" ? {} : { note: data.note }),
      };
      const added = await addSuppression(context.runtime.deps, actor, input);
      if (added.isOk()) report.added += 1;
      else {
        const issues =
          "issues" in added.error && added.error.issues
            ? added.error.issues
            : [{ path: "row", message: added.error.message }];
        report.rejected.push({ line: entry.row, issues });
      }
    }
    const lines = [
      `${report.rows} rows from ${file}: ${report.added} suppressed, ${report.rejected.length} rejected.`,
      ...report.rejected.map(
        ({ line, issues }) =>
          `  line ${line}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      ),
    ];
    return ok({ json: report, human: lines.join("\n") });
  },
};

/**
 * `suppressions export --org ORG`: every suppression as JSON lines. Numbers are not stored, so
 * each line has the keyed hash, and the number where the organization still knows it (one of
 * its profiles has it, or an inbound message kept by retention came from it).
 */
export const suppressionsExport = organizationCommand({
  name: ["suppressions", "export"],
  summary:
    "Write an organization's suppressions as JSON lines (to stdout, or --json for an array).",
  usage: "--org ORG",
  async run(context, organizationId) {
    const all = await exportSuppressions(context.runtime.deps, organizationId);
    return ok({ json: all, human: all.map((s) => JSON.stringify(s)).join("\n") });
  },
});
