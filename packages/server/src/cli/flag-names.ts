import type { DomainError } from "@tidings/core";
import type { Command } from "./command.js";

/**
 * Edits needed to turn `a` into `b`, a swap of two neighbours counting as one (optimal string
 * alignment), for "did you mean" on a misspelt flag: `--nmae` is one edit from `--name`.
 */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      const row = d[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The name closest to a misspelt one (`nmae` → `name`, `campains` → `campaigns`), if one is
 * close: at most a third of it may differ (`nme` is name, `foo` is nothing). The first of
 * equally close names wins.
 */
export function closestName(given: string, names: readonly string[]): string | null {
  let best: { name: string; edits: number } | null = null;
  for (const name of names) {
    const edits = distance(given, name);
    if (best === null || edits < best.edits) best = { name, edits };
  }
  return best && best.edits <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : null;
}

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
