import {
  type DomainError,
  type ErasureView,
  erasePerson,
  eraseProfile,
  exportPerson,
  exportProfile,
  personMatchInput,
} from "@tidings/core";
import { err, ok, type Result, type ResultAsync } from "neverthrow";
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

/**
 * A privacy command of the `--org` organization: `target` reads what it is about from the
 * command line (a profile's public id, or the person a number or an address names), `act` is
 * the core's use case, `human` says what came of it.
 */
function privacyCommand<Q, T>(
  command: Pick<Command, "name" | "summary" | "usage" | "details" | "options" | "positionals">,
  target: (context: CommandContext) => Result<Q, DomainError>,
  act: (
    deps: CommandContext["runtime"]["deps"],
    actor: { organizationId: string; apiKeyId: null },
    target: Q,
  ) => ResultAsync<T, DomainError>,
  human: (value: T) => string,
): Command {
  return {
    ...command,
    required: ["org"],
    async run(context) {
      const actor = await actorOf(context);
      if (actor.isErr()) return err(actor.error);
      const about = target(context);
      if (about.isErr()) return err(about.error);
      const done = await act(context.runtime.deps, actor.value, about.value);
      return done.isErr() ? err(done.error) : ok({ json: done.value, human: human(done.value) });
    },
  };
}

const PROFILE = {
  options: { org: ORG_OPTION },
  positionals: { min: 1, max: 1 },
  usage: "PUBLIC_ID --org ORG",
} as const;
const publicIdOf = (context: CommandContext) => ok(context.positionals[0] ?? "");

const PERSON = {
  options: PERSON_OPTIONS,
  positionals: { min: 0, max: 0 },
  usage: "--org ORG (--phone-number NUMBER | --email ADDRESS)",
} as const;

const asJson = (value: unknown) => JSON.stringify(value, null, 2);

/** `profiles erase PUBLIC_ID --org ORG`. */
export const profilesErase = privacyCommand(
  {
    ...PROFILE,
    name: ["profiles", "erase"],
    summary: "Erase a profile (active or deleted) and what identifies its person.",
    details: ERASURE_DETAILS,
  },
  publicIdOf,
  eraseProfile,
  erasedText,
);

/** `profiles export PUBLIC_ID --org ORG`: the document, as JSON either way. */
export const profilesExport = privacyCommand(
  {
    ...PROFILE,
    name: ["profiles", "export"],
    summary: "Print everything held about a profile's person (deleted ones too) as JSON.",
  },
  publicIdOf,
  exportProfile,
  asJson,
);

/** `privacy erase --org ORG --phone-number N | --email E`. */
export const privacyErase = privacyCommand(
  {
    ...PERSON,
    name: ["privacy", "erase"],
    summary: "Erase everyone held under a phone number or an e-mail address.",
    details: ERASURE_DETAILS,
  },
  matchOf,
  erasePerson,
  erasedText,
);

/** `privacy export --org ORG --phone-number N | --email E`. */
export const privacyExport = privacyCommand(
  {
    ...PERSON,
    name: ["privacy", "export"],
    summary: "Print everything held under a phone number or an e-mail address as JSON.",
  },
  matchOf,
  exportPerson,
  asJson,
);
