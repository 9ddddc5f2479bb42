import {
  type DomainError,
  type ErasureView,
  erasePerson,
  eraseProfile,
  exportPerson,
  exportProfile,
  personMatchInput,
} from "@tidings/core";
import { err, ok, type ResultAsync } from "neverthrow";
import { type Command, type CommandContext, ORG_OPTION } from "../command.js";
import { findOrganization } from "./organization.js";

/** What an erasure did, as a sentence. */
function erasedText(view: ErasureView): string {
  const counts = Object.entries(view.erased).filter(([, n]) => n > 0);
  if (counts.length === 0) {
    return view.profile_ids.length === 0
      ? "Nothing is held under it: nothing to erase."
      : `Nothing left to erase (${view.profile_ids.join(", ")} erased before).`;
  }
  const what = counts.map(([kind, n]) => `${kind.replaceAll("_", " ")}: ${n}`).join(", ");
  return `Erased ${what}. Consent history kept; suppressions kept, their notes cleared.`;
}

/** The actor of the `--org` organization. */
async function actorOf(context: CommandContext) {
  const org = await findOrganization(context);
  return org.map((organizationId) => ({ organizationId, apiKeyId: null }));
}

/** The person `--phone-number` or `--email` names, checked as the API checks its body. */
function matchOf(context: CommandContext) {
  const input: Record<string, unknown> = {};
  if (context.flags["phone-number"] !== undefined)
    input.phone_number = context.flags["phone-number"];
  if (context.flags.email !== undefined) input.email = context.flags.email;
  return personMatchInput(input);
}

const PERSON_OPTIONS = {
  org: ORG_OPTION,
  "phone-number": { type: "string", value: "NUMBER", help: "The person's phone number (E.164)." },
  email: { type: "string", value: "ADDRESS", help: "The person's e-mail address, instead." },
} as const;

const ERASURE_DETAILS = [
  "Irreversible: the number, e-mail, names and attributes, the messages' numbers and texts,",
  "links' URLs and webhook bodies that carry them are gone; ids, statuses, times and the",
  "consent history stay. Backups made before still hold them (docs/production.md).",
];

/** A command about one profile of the `--org` organization: `act` is the core's use case. */
function profileCommand<T>(
  command: Pick<Command, "name" | "summary" | "usage" | "details">,
  act: (
    deps: CommandContext["runtime"]["deps"],
    actor: { organizationId: string; apiKeyId: null },
    publicId: string,
  ) => ResultAsync<T, DomainError>,
  human: (value: T) => string,
): Command {
  return {
    ...command,
    options: { org: ORG_OPTION },
    required: ["org"],
    positionals: { min: 1, max: 1 },
    async run(context) {
      const actor = await actorOf(context);
      if (actor.isErr()) return err(actor.error);
      const done = await act(context.runtime.deps, actor.value, context.positionals[0] ?? "");
      return done.isErr() ? err(done.error) : ok({ json: done.value, human: human(done.value) });
    },
  };
}

/** `profiles erase PUBLIC_ID --org ORG`. */
export const profilesErase = profileCommand(
  {
    name: ["profiles", "erase"],
    summary: "Erase a profile (active or deleted) and what identifies its person.",
    details: ERASURE_DETAILS,
    usage: "PUBLIC_ID --org ORG",
  },
  eraseProfile,
  erasedText,
);

/** `profiles export PUBLIC_ID --org ORG`: the document, as JSON either way. */
export const profilesExport = profileCommand(
  {
    name: ["profiles", "export"],
    summary: "Print everything held about a profile's person (deleted ones too) as JSON.",
    usage: "PUBLIC_ID --org ORG",
  },
  exportProfile,
  (exported) => JSON.stringify(exported, null, 2),
);

/** `privacy erase --org ORG --phone-number N | --email E`. */
export const privacyErase: Command = {
  name: ["privacy", "erase"],
  summary: "Erase everyone held under a phone number or an e-mail address.",
  details: ERASURE_DETAILS,
  usage: "--org ORG (--phone-number NUMBER | --email ADDRESS)",
  options: PERSON_OPTIONS,
  required: ["org"],
  positionals: { min: 0, max: 0 },
  async run(context) {
    const actor = await actorOf(context);
    if (actor.isErr()) return err(actor.error);
    const match = matchOf(context);
    if (match.isErr()) return err(match.error);
    const erased = await erasePerson(context.runtime.deps, actor.value, match.value);
    if (erased.isErr()) return err(erased.error);
    return ok({ json: erased.value, human: erasedText(erased.value) });
  },
};

/** `privacy export --org ORG --phone-number N | --email E`. */
export const privacyExport: Command = {
  name: ["privacy", "export"],
  summary: "Print everything held under a phone number or an e-mail address as JSON.",
  usage: "--org ORG (--phone-number NUMBER | --email ADDRESS)",
  options: PERSON_OPTIONS,
  required: ["org"],
  positionals: { min: 0, max: 0 },
  async run(context) {
    const actor = await actorOf(context);
    if (actor.isErr()) return err(actor.error);
    const match = matchOf(context);
    if (match.isErr()) return err(match.error);
    const exported = await exportPerson(context.runtime.deps, actor.value, match.value);
    if (exported.isErr()) return err(exported.error);
    return ok({ json: exported.value, human: JSON.stringify(exported.value, null, 2) });
  },
};
