import {
  createSignInToken,
  revokeConsoleSessions,
  SIGN_IN_LINK_DEFAULT_MINUTES,
  SIGN_IN_LINK_MAX_MINUTES,
} from "@tidings/core";
import { err, ok } from "neverthrow";
import type { ServerConfig } from "../../config.js";
import { type Command, ORG_OPTION } from "../command.js";
import { UsageError } from "../usage-error.js";
import { findOrganization, organizationCommand } from "./organization.js";

const minutesOf = (text: string): number => {
  const minutes = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(minutes >= 1 && minutes <= SIGN_IN_LINK_MAX_MINUTES)) {
    throw new UsageError(
      `--ttl-minutes must be a whole number from 1 to ${SIGN_IN_LINK_MAX_MINUTES}, not ${JSON.stringify(text)}.`,
    );
  }
  return minutes;
};

/** Where the console is reached: `TIDINGS_PUBLIC_URL`, else this machine's port. */
const consoleBaseUrl = (config: ServerConfig): string =>
  `${config.publicUrl ?? `http://127.0.0.1:${config.port}`}/console`;

/**
 * `console link --org ORG [--ttl-minutes 15]`: a one-time sign-in URL for the organization's
 * web console. Opening it shows a Sign in button; pressing it spends the link.
 */
export const consoleLink: Command = {
  name: ["console", "link"],
  summary: "Print a one-time sign-in link to an organization's web console.",
  usage: `--org ORG [--ttl-minutes ${SIGN_IN_LINK_DEFAULT_MINUTES} (at most ${SIGN_IN_LINK_MAX_MINUTES})]`,
  options: {
    org: ORG_OPTION,
    "ttl-minutes": {
      type: "string",
      value: "MINUTES",
      help: `How long the link works, ${SIGN_IN_LINK_DEFAULT_MINUTES} by default, at most ${SIGN_IN_LINK_MAX_MINUTES}.`,
    },
  },
  required: ["org"],
  validate(flags) {
    if (typeof flags["ttl-minutes"] === "string") minutesOf(flags["ttl-minutes"]);
  },
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const ttl = context.flags["ttl-minutes"];
    const minutes = typeof ttl === "string" ? minutesOf(ttl) : SIGN_IN_LINK_DEFAULT_MINUTES;
    if (context.config.publicUrl === null) {
      context.logger.warn(
        "TIDINGS_PUBLIC_URL is not set; the link points at this machine's port. Set it to the address users reach the server at.",
        { url: consoleBaseUrl(context.config) },
      );
    }
    if (!context.config.console) {
      context.logger.warn(
        "TIDINGS_CONSOLE=0: serve does not mount the console, so this link opens nothing.",
      );
    }
    const created = await createSignInToken(context.runtime.deps, org.value, minutes);
    if (created.isErr()) return err(created.error);
    const url = `${consoleBaseUrl(context.config)}/sign-in?token=${created.value.token}`;
    return ok({
      json: { url, expires_at: created.value.expires_at },
      human: [
        url,
        `It signs in once, until ${created.value.expires_at}. Open it in a browser and press Sign in.`,
      ].join("\n"),
    });
  },
};

/** `console sessions revoke --org ORG`: signs everyone out of an organization's console. */
export const consoleSessionsRevoke = organizationCommand({
  name: ["console", "sessions", "revoke"],
  summary: "End every web console session of an organization (and void its unused links).",
  usage: "--org ORG",
  async run(context, organizationId) {
    const revoked = await revokeConsoleSessions(context.runtime.deps, organizationId);
    if (revoked.isErr()) return err(revoked.error);
    const { revoked: count } = revoked.value;
    return ok({
      json: { revoked: count },
      human: `Ended ${count} console session${count === 1 ? "" : "s"} of ${organizationId}.`,
    });
  },
});
