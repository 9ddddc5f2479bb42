import {
  type ApiKeyView,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  SCOPE_GRANTS,
  SCOPES,
} from "@tidings/core";
import { err, ok } from "neverthrow";
import { type Command, ORG_OPTION } from "../command.js";
import { table } from "../output.js";
import { findOrganization, organizationCommand } from "./organization.js";

/** A key as one row of `keys list`. */
const keyRow = (key: ApiKeyView): string[] => {
  const state = key.revoked_at
    ? `revoked ${key.revoked_at}`
    : key.expires_at
      ? `expires ${key.expires_at}`
      : "active";
  return [key.key_id, state, key.scopes.join(","), key.name ?? ""];
};

/** `keys create --org ORG --scopes s1,s2 [--expires-at ISO]`: the secrets are shown once. */
export const keysCreate: Command = {
  name: ["keys", "create"],
  summary: "Create an API key; its secret and webhook signing secret are shown once.",
  usage: "--org ORG --scopes SCOPE[,SCOPE…] [--name NAME] [--expires-at ISO]",
  // A key holds exactly the scopes it is given; none implies another.
  details: [
    "",
    "Scopes (comma-separated; a key holds only those it is given):",
    ...SCOPES.map((scope) => `  ${scope.padEnd(18)}${SCOPE_GRANTS[scope]}`),
  ],
  options: {
    org: ORG_OPTION,
    name: { type: "string", help: "A name to tell keys apart in `keys list`." },
    scopes: {
      type: "string",
      value: "SCOPE[,SCOPE…]",
      help: "What the key may do, comma-separated (listed below).",
    },
    "expires-at": {
      type: "string",
      value: "ISO",
      help: "When the key stops working, e.g. 2027-01-01T00:00:00Z; never by default.",
    },
  },
  required: ["org", "scopes"],
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const scopes = String(context.flags.scopes)
      .split(",")
      .map((scope) => scope.trim())
      .filter((scope) => scope !== "");
    const created = await createApiKey(context.runtime.deps, {
      organization_id: org.value,
      name: context.flags.name ?? null,
      scopes,
      expires_at: context.flags["expires-at"] ?? null,
    });
    if (created.isErr()) return err(created.error);
    const key = created.value;
    return ok({
      json: key,
      human: [
        `Created API key ${key.key_id}${key.name ? ` ${JSON.stringify(key.name)}` : ""} (${key.scopes.join(", ")}${key.expires_at ? `, expires ${key.expires_at}` : ""}).`,
        "These secrets are shown only now; keep them somewhere safe.",
        `  token (Authorization: Bearer …):  ${key.token}`,
        `  webhook_signing_secret:           ${key.webhook_signing_secret}`,
      ].join("\n"),
    });
  },
};

/** `keys list --org ORG`: the organization's keys, without secrets. */
export const keysList = organizationCommand({
  name: ["keys", "list"],
  summary: "List an organization's API keys (without secrets).",
  usage: "--org ORG",
  async run(context, organizationId) {
    const keys = await listApiKeys(context.runtime.deps, organizationId);
    if (keys.isErr()) return err(keys.error);
    return ok({
      json: { data: keys.value },
      human:
        keys.value.length === 0
          ? "No API keys."
          : table(context.io.stdout, ["KEY", "STATE", "SCOPES", "NAME"], keys.value.map(keyRow)),
    });
  },
});

/** `keys revoke KEY_ID`: requests made with the key stop being accepted at once. */
export const keysRevoke: Command = {
  name: ["keys", "revoke"],
  summary: "Revoke an API key.",
  usage: "KEY_ID",
  options: {},
  positionals: { min: 1, max: 1 },
  async run({ runtime, positionals }) {
    const revoked = await revokeApiKey(runtime.deps, positionals[0] ?? "");
    if (revoked.isErr()) return err(revoked.error);
    return ok({
      json: revoked.value,
      human: `Revoked API key ${revoked.value.key_id} (${revoked.value.revoked_at}).`,
    });
  },
};
