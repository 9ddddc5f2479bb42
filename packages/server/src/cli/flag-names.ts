import { closestName, type DomainError } from "@tidings/core";
import type { Command } from "./command.js";

/** The command's flag closest to a misspelt one (`--nmae` → `--name`), if one is close. */
export function closestFlag(command: Command, given: string): string | null {
  const names = [...Object.keys(command.options), "json", "help"];
  const bare = given.replace(/^-+/, "").split("=", 1)[0] ?? "";
  const found = closestName(bare, names);
  return found === null ? null : `--${found}`;
}

/**
 * The flag that set an input field: `ttl_seconds` came from `--ttl`, `sms_fallback` from
 * `--sms-fallback`. `null` for a field no flag of the command sets.
 */
function flagOfField(command: Command, field: string): string | null {
  const alias = command.fieldFlags?.[field];
  if (alias !== undefined) return `--${alias}`;
  const kebab = field.replaceAll("_", "-");
  return Object.hasOwn(command.options, kebab) ? `--${kebab}` : null;
}

/**
 * A domain error as the command line should show it: each issue at the flag that set the
 * field (`--ttl`), not at the API's name for it (`ttl_seconds`). With `--json`, the issue
 * keeps its `path` and gains `flag`.
 */
export function withFlagNames(error: DomainError, command: Command, json: boolean): DomainError {
  if (!("issues" in error) || !error.issues) return error;
  const issues = error.issues.map((issue) => {
    // `scopes[1]` is the second item of --scopes; `template.body` a field inside --template.
    const [, field = "", rest = ""] = /^([^.[]*)(.*)$/.exec(issue.path) ?? [];
    const flag = flagOfField(command, field);
    if (flag === null) return issue;
    if (json) return { ...issue, flag };
    const item = /^\[(\d+)\](.*)$/.exec(rest);
    const path = item ? `${flag} (item ${Number(item[1]) + 1})${item[2] ?? ""}` : flag + rest;
    return { ...issue, path };
  });
  return { ...error, issues } as DomainError;
}
